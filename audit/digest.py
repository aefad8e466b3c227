"""A table's content digest: the same for the same values, whichever writer made the file.

Format (v1), hashed with blake3: the line ``secondseat-table-v1``, ``rows=<n>``,
then per column in file order ``column=<name>|type=<t>|values=<h>`` where ``t``
is bool, int, float or string (else ``other:<dtype>``) and ``h`` the blake3 of
the column's values, each written as ``N;`` (null), ``T;``/``F;``, ``I<digits>;``,
``D<float.hex()>;`` or ``S<utf-8 byte length>:<text>;``. Parquet encodings,
compression, row groups, string widths and writer metadata do not enter it.
"""

from __future__ import annotations

from pathlib import Path

import blake3
import polars as pl

from audit.errors import AuditError


def _kind(dtype: pl.DataType) -> str:
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer():
        return "int"
    if dtype.is_float():
        return "float"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "string"
    return f"other:{dtype}"


def _encode(kind: str, value: object) -> bytes:
    if value is None:
        return b"N;"
    if kind == "bool":
        return b"T;" if value else b"F;"
    if kind == "int":
        return b"I%d;" % value
    if kind == "float":
        return b"D" + float(value).hex().encode() + b";"
    text = str(value).encode("utf-8")
    return b"S%d:" % len(text) + text + b";"


def column_digest(series: pl.Series) -> tuple[str, str]:
    kind = _kind(series.dtype)
    h = blake3.blake3()
    for value in series.to_list():
        h.update(_encode(kind, value))
    return kind, h.hexdigest()


def read_table(path: str | Path) -> pl.DataFrame:
    """Read a parquet file; a missing or broken file is an AuditError."""
    p = Path(path)
    if not p.is_file():
        raise AuditError("missing_file", str(path), "no such file")
    try:
        return pl.read_parquet(p)
    except Exception as e:  # noqa: BLE001 - polars raises several types for a broken file
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AuditError(
            "unreadable", str(path), f"not a readable parquet file ({first})"
        ) from None


def table_digest(path: str | Path) -> dict[str, object]:
    """Content digest of one parquet table, with its shape."""
    df = read_table(path)
    lines = ["secondseat-table-v1", f"rows={df.height}"]
    for name in df.columns:
        kind, h = column_digest(df.get_column(name))
        lines.append(f"column={name}|type={kind}|values={h}")
    text = "\n".join(lines) + "\n"
    return {
        "content_digest": blake3.blake3(text.encode("utf-8")).hexdigest(),
        "rows": df.height,
        "columns": df.width,
    }
