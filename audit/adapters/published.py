"""A published table an adapter joins its rows to, read as the publisher shipped it.

Parquet (``PAR1`` at the start) is taken with its own column types; anything else is
read as CSV (UTF-8, a header line), each column's type inferred by polars over every
row, but the declared key column, which is always text. The key column must be there
(``missing_column``), text (``bad_type``), never null (``bad_leaderboard``) and
never twice (``duplicate_key``). Every column is kept as it is, in the file's order.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from audit.errors import AuditError

MAX_TEXT = 1 << 30  # a CSV table over 1 GiB is not a published leaderboard


def _csv(path: str, key: str) -> pl.DataFrame:
    p = Path(path)
    if p.stat().st_size > MAX_TEXT:
        raise AuditError("too_large", path, "a CSV table over 1 GiB")
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AuditError("unreadable", path, "not UTF-8 text") from None
    if not text.strip():
        raise AuditError("empty", path, "no header line")
    try:
        header = pl.read_csv(text.encode("utf-8"), n_rows=0).columns
        overrides = {key: pl.String} if key in header else {}
        return pl.read_csv(
            text.encode("utf-8"), infer_schema_length=None, schema_overrides=overrides
        )
    except pl.exceptions.DuplicateError:
        raise AuditError("duplicate_column", path, "a column name occurs twice") from None
    except Exception as e:  # noqa: BLE001 - polars raises several types for a broken CSV
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AuditError("unreadable", path, f"not a readable CSV table ({first})") from None


def read(path: str, key: str) -> pl.DataFrame:
    """The table, its key column checked."""
    from audit.bundles.digest import read_table

    p = Path(path)
    if not p.is_file():
        raise AuditError("missing_file", path, "no such file")
    with p.open("rb") as f:
        head = f.read(4)
    table = read_table(path) if head == b"PAR1" else _csv(path, key)
    if key not in table.columns:
        raise AuditError(
            "missing_column", path, f"no key column {key!r} (columns: {', '.join(table.columns)})"
        )
    if table.schema[key] != pl.String:
        raise AuditError("bad_type", path, f"key column {key!r} is {table.schema[key]}, not text")
    nulls = table[key].null_count()
    if nulls:
        raise AuditError("bad_leaderboard", path, f"key column {key!r} is null on {nulls} row(s)")
    twice = table.filter(pl.col(key).is_duplicated())[key].unique().sort().to_list()
    if twice:
        raise AuditError(
            "duplicate_key", path, f"key column {key!r} holds {', '.join(twice)} more than once"
        )
    if table.height == 0:
        raise AuditError("empty", path, "the published table has no row")
    return table
