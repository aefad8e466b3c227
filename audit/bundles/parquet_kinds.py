"""The contract's kind of each top-level column of a parquet file, from its own schema.

docs/contract.md, Types: a column's kind (boolean, integer, floating, string, null,
other) comes from the parquet schema, the file's physical and logical types, never
from a library's in-memory type nor from a schema a writer stored beside it (Arrow's
``ARROW:schema``: a column written from an Arrow duration is a plain INT64 in the file,
so an integer). polars reads through that stored schema (a duration, a categorical),
so the referee reads the footer itself (audit/bundles/parquet_bounds.py:
FileMetaData's ``schema``, SchemaElements depth first, the root first) and maps each
top-level element as the contract's table does:

- null: the null logical type (UNKNOWN);
- boolean: BOOLEAN;
- integer: INT32 or INT64 with no logical type, or the INTEGER logical type (the
  legacy INT_n / UINT_n converted types too), but not DATE, TIME, TIMESTAMP, DECIMAL
  or INTERVAL;
- floating: FLOAT or DOUBLE;
- string: BYTE_ARRAY annotated STRING (converted type UTF8);
- other: everything else (INT96, binary, FIXED_LEN_BYTE_ARRAY, ENUM, JSON, a group: a
  list, map or struct; a repeated top-level field).
"""

from __future__ import annotations

from pathlib import Path

from audit.bundles import parquet_bounds
from audit.bundles.parquet_columns import top_level

_SE_TYPE, _SE_REPETITION, _SE_CHILDREN, _SE_CONVERTED, _SE_LOGICAL = 1, 3, 5, 6, 10
_BOOLEAN, _INT32, _INT64, _FLOAT, _DOUBLE, _BYTE_ARRAY = 0, 1, 2, 4, 5, 6
_REPEATED = 2
# LogicalType's union members (parquet.thrift): STRING 1, INTEGER 10, UNKNOWN 11
_LT_STRING, _LT_INTEGER, _LT_UNKNOWN = 1, 10, 11
_CT_UTF8 = 0
_CT_INTEGERS = frozenset(range(11, 19))  # UINT_8 .. UINT_64, INT_8 .. INT_64


def kind(element: dict) -> str:
    """The contract's kind of one top-level SchemaElement (Thrift field id -> value)."""
    logical = element.get(_SE_LOGICAL)
    member = next(iter(logical), None) if isinstance(logical, dict) and logical else None
    converted = element.get(_SE_CONVERTED)
    physical = element.get(_SE_TYPE)
    if member == _LT_UNKNOWN:
        return "null"
    if element.get(_SE_CHILDREN) or element.get(_SE_REPETITION) == _REPEATED:
        return "other"
    if physical == _BOOLEAN and member is None and converted is None:
        return "boolean"
    if physical in (_INT32, _INT64):
        plain = member is None and (converted is None or converted in _CT_INTEGERS)
        return "integer" if plain or member == _LT_INTEGER else "other"
    if physical in (_FLOAT, _DOUBLE) and member is None and converted is None:
        return "floating"
    if physical == _BYTE_ARRAY and (
        member == _LT_STRING or (member is None and converted == _CT_UTF8)
    ):
        return "string"
    return "other"


def kinds(path: str | Path, shown: str | None = None) -> dict[str, str]:
    """Each top-level column's kind, in file order (a name given twice: its last);
    ``unreadable`` for a file whose footer cannot be parsed."""
    meta, _, _ = parquet_bounds.read_footer(path, shown or str(path))
    return {name: kind(element) for name, element in top_level(meta, shown or str(path))}
