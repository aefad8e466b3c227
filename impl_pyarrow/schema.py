"""What the contract reads of a parquet file, judged from its parquet schema (not Arrow's).

Arrow's reading of a file can differ from the file's own schema: a column
written from an Arrow duration is a plain INT64 in the file (the duration
lives only in Arrow's stored schema), an INT96 becomes a timestamp. The
contract's kinds come from the parquet schema, so they are read here from
`ParquetFile.schema` (physical and logical types of the leaf columns), and
`conform` casts a column Arrow reads otherwise back to what the file says.
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import InputError

# The contract's lists (Types). Arrow names the LZ4_RAW codec "LZ4" (the
# deprecated framed LZ4 is "LZ4_HADOOP", refused).
ENCODINGS = frozenset({"PLAIN", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "RLE_DICTIONARY"})
CODECS = frozenset({"UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "ZSTD", "LZ4"})
_NOT_INTEGER = {"DATE", "TIME", "TIMESTAMP", "DECIMAL", "INTERVAL", "UNKNOWN"}
_NOT_INTEGER_CONVERTED = {
    "DATE", "TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "DECIMAL",
    "INTERVAL",
}  # fmt: skip


# docs/contract.md, too_large: what a parquet file's footer may declare it becomes once read
_FLOOR_BYTES, _RATIO, _CAP_BYTES, _MAX_VALUES = 256 * 2**20, 64, 8 * 2**30, 2**28


def check_declared_size(pf: pq.ParquetFile, path: str) -> None:
    """too_large if the footer declares more uncompressed bytes than the bound allows for
    the file's size, or more values; read from Arrow's FileMetaData, before any page."""
    meta = pf.metadata
    chunks = [
        meta.row_group(g).column(i)
        for g in range(meta.num_row_groups)
        for i in range(meta.row_group(g).num_columns)
    ]
    inflated = sum(chunk.total_uncompressed_size for chunk in chunks)
    allowed = min(_CAP_BYTES, max(_FLOOR_BYTES, _RATIO * os.stat(path).st_size))
    if inflated > allowed:
        raise InputError(
            "too_large",
            path,
            f"its footer declares {inflated} bytes once read, more than {allowed}",
        )
    values = max(sum(chunk.num_values for chunk in chunks), meta.num_rows)
    if values > _MAX_VALUES:
        raise InputError(
            "too_large", path, f"its footer declares {values} values, more than {_MAX_VALUES}"
        )


def check_layout(pf: pq.ParquetFile, path: str) -> None:
    """unsupported_encoding if a column chunk uses an encoding the contract does not read,
    unreadable if a codec."""
    meta = pf.metadata
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for i in range(group.num_columns):
            chunk = group.column(i)
            for enc in chunk.encodings:
                if enc not in ENCODINGS:
                    raise InputError(
                        "unsupported_encoding",
                        path,
                        f"column {chunk.path_in_schema!r} uses encoding {enc}, "
                        "not one the contract reads",
                    )
            if chunk.compression not in CODECS:
                raise InputError(
                    "unreadable",
                    path,
                    f"column {chunk.path_in_schema!r} uses compression {chunk.compression}, "
                    "not one the contract reads",
                )


def _leaf_kind(col: pq.ColumnSchema) -> str:
    physical, logical = col.physical_type, col.logical_type.type
    if logical == "UNKNOWN":
        return "null"
    if physical == "BOOLEAN":
        return "boolean"
    if physical in ("INT32", "INT64"):
        if logical in _NOT_INTEGER or col.converted_type in _NOT_INTEGER_CONVERTED:
            return "other"
        return "integer"
    if physical in ("FLOAT", "DOUBLE"):
        return "floating"
    if physical == "BYTE_ARRAY" and logical == "STRING":
        return "string"
    return "other"


def kinds(pf: pq.ParquetFile) -> dict[str, str]:
    """The contract's kind of each top-level column (a name given twice: its last)."""
    schema = pf.schema
    leaves: dict[str, pq.ColumnSchema] = {}
    for i in range(len(schema)):
        col = schema.column(i)
        # a top-level primitive column is a leaf whose path is its own name, never repeated
        if col.path == col.name and col.max_repetition_level == 0:
            leaves[col.name] = col
    return {
        name: _leaf_kind(leaves[name]) if name in leaves else "other"
        for name in pf.schema_arrow.names
    }


def conform(table: pa.Table, kinds_of: dict[str, str]) -> pa.Table:
    """Integer columns Arrow reads as another type (a duration) cast to the integers stored."""
    for i, field in enumerate(table.schema):
        typ = field.type.value_type if pa.types.is_dictionary(field.type) else field.type
        if kinds_of.get(field.name) == "integer" and not pa.types.is_integer(typ):
            table = table.set_column(i, field.name, table.column(i).cast(pa.int64()))
    return table


def check_utf8(columns: dict[str, pa.ChunkedArray | pa.Array], path: str) -> None:
    """unreadable if a string column holds bytes that are not UTF-8 (Arrow's full validation)."""
    for name, column in columns.items():
        try:
            column.validate(full=True)
        except pa.ArrowInvalid:
            raise InputError(
                "unreadable", path, f"column {name!r} holds a string that is not valid UTF-8"
            ) from None
