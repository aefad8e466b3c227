"""A parquet file's top-level column names, as its footer lists them (duplicates kept).

Read from the footer the referee parses itself (audit/bundles/parquet_bounds.py:
FileMetaData's ``schema``, a depth-first list of SchemaElements whose first is the
root): a name given twice stays twice, where polars' schema would refuse or merge
it. Preflight judges the columns the prereg names against these before the lock
(audit/preflight.py, check_columns).
"""

from __future__ import annotations

from pathlib import Path

from audit.bundles import parquet_bounds
from audit.errors import AuditError

_FMD_SCHEMA = 2
_SE_NAME, _SE_CHILDREN = 4, 5


def names(path: str | Path, shown: str | None = None) -> list[str]:
    """The file's top-level column names in file order; ``unreadable`` for a file whose
    footer cannot be parsed or whose schema is not a tree."""
    name = shown or str(path)
    meta, _, _ = parquet_bounds.read_footer(path, name)
    return [n for n, _ in top_level(meta, name)]


def top_level(meta: dict[int, object], name: str) -> list[tuple[str, dict]]:
    """(name, SchemaElement) of each top-level column of a parsed footer, in file order;
    ``unreadable`` (naming ``name``) for a schema that is not a tree."""
    elements = meta.get(_FMD_SCHEMA)
    if not isinstance(elements, list) or not elements or not isinstance(elements[0], dict):
        raise AuditError("unreadable", name, "not a readable parquet file (no schema)")
    out: list[tuple[str, dict]] = []
    i = 1
    for _ in range(_count(elements[0])):
        if i >= len(elements) or not isinstance(elements[i], dict):
            raise AuditError("unreadable", name, "not a readable parquet file (a short schema)")
        raw = elements[i].get(_SE_NAME)
        shown = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else ""
        out.append((shown, elements[i]))
        i = _subtree_end(elements, i, name)
    return out


def _count(element: dict) -> int:
    n = element.get(_SE_CHILDREN)
    return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 0


def _subtree_end(elements: list, i: int, name: str) -> int:
    """The index after element i's subtree (iterative: a schema may nest deeply)."""
    pending = 1
    while pending:
        if i >= len(elements) or not isinstance(elements[i], dict):
            raise AuditError("unreadable", name, "not a readable parquet file (a short schema)")
        pending += _count(elements[i]) - 1
        i += 1
    return i
