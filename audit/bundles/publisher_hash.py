"""The publisher's own digest of a table, recomputed by a declared recipe.

``openhands-source-hash-v1`` is the OpenHands index's ``.source_hash``
(``scripts/publish_hf_dataset.py``, ``content_hash``): the sha256 of the table
written by pandas as ``df.reindex(sorted(df.columns), axis=1).to_csv(index=False,
float_format="%.10g")``, UTF-8. The referee has no pandas, so the CSV is written here
with what pandas itself writes through: Python's ``csv`` writer (minimal quoting,
``"\\n"`` line ends) over each value formatted as pandas formats it for the table as
pandas reads the parquet file:

- text: as is; null: the empty field;
- doubles (and floats): ``"%.10g" % value``; null or NaN: empty;
- integers: decimal; an integer column with a null is read by pandas as doubles, so
  its values are written ``"%.10g" % value`` too;
- booleans: ``True`` / ``False``; null: empty;
- a column of the null type (every value null): empty fields, as pandas writes ``None``.

Any other type is refused (``unsupported_type``, one line naming the file and the
column, before the lock writes anything), not guessed. An Arrow duration (a plain INT64
in the file: to the contract, docs/contract.md Types, an integer, the INT64 stored, as
the content digest reads it) is refused too: pandas writes a frame's durations as
timedelta text (``0 days 00:00:05``), and the stored integers only if the publisher's
frame held integers (pandas reading the file with fastparquet), so either rendering
would be a guess at what the publisher hashed. A list, array, struct or map
column has no one rendering: pandas writes each cell with ``str()``, and what that gives
depends on what the publisher's frame held, which the parquet file does not say (a
Python list ``['a', 'b']``, a numpy array read back from parquet ``['a' 'b']``, a dict
in its keys' insertion order), so any digest computed here could report ``differs``
for an honest table. Tests check the bytes
against pandas' own ``to_csv`` in the pandas contestant's environment.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from audit.errors import AuditError
from audit.files import read_regular

RECIPES = ("openhands-source-hash-v1",)


def _float(v: Any) -> str:
    return "" if v is None or math.isnan(v) else "%.10g" % v  # noqa: UP031 - the publisher's format


def _formatter(dtype: pl.DataType, has_null: bool, column: str, path: str) -> Callable:
    if dtype == pl.String:
        return lambda v: "" if v is None else v
    if dtype.is_float():
        return _float
    if dtype.is_integer():
        return _float if has_null else (lambda v: str(v))
    if dtype == pl.Boolean:
        return lambda v: "" if v is None else ("True" if v else "False")
    if dtype == pl.Null:
        return lambda v: ""
    why = (
        ": pandas writes a nested cell with str(), which depends on whether the publisher's"
        " frame held Python lists, numpy arrays or dicts, and the file does not say"
        if dtype.is_nested() or isinstance(dtype, pl.Object)
        else ": to the contract it holds the integers the file stores, but pandas writes a"
        " frame's durations as timedelta text ('0 days 00:00:05'), the integers only if the"
        " frame held integers, and the file does not say which the publisher hashed"
        if isinstance(dtype, pl.Duration)
        else ""
    )
    # polars' unit of a duration is not the file's (one in seconds it reads as milliseconds)
    shown = "an Arrow duration" if isinstance(dtype, pl.Duration) else str(dtype)
    raise AuditError(
        "unsupported_type",
        path,
        f"column {column!r} is {shown}: the publisher_hash recipe does not define it{why};"
        " nothing was written",
    )


def pandas_csv(table: pl.DataFrame, path: str) -> bytes:
    """The bytes of ``to_csv(index=False, float_format="%.10g")`` with columns sorted."""
    names = sorted(table.columns)
    fmts = [_formatter(table.schema[n], table[n].null_count() > 0, n, path) for n in names]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(names)
    for row in table.select(names).iter_rows():
        w.writerow([f(v) for f, v in zip(fmts, row, strict=True)])
    return buf.getvalue().encode("utf-8")


def recompute(path: str) -> str:
    return hashlib.sha256(pandas_csv(pl.read_parquet(path), path)).hexdigest()


MAX_PUBLISHED = 1 << 20  # a digest is a line of hex: a mebibyte is plenty


def published(path: Path) -> str | None:
    """The publisher's digest, stripped; None when the bundle holds no such file (a
    folder, FIFO or device is none). At most MAX_PUBLISHED bytes (too_large), UTF-8
    (unreadable): one line, not a traceback of the lock."""
    if not path.is_file():
        return None
    raw = read_regular(path, MAX_PUBLISHED, "too_large")
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise AuditError("unreadable", str(path), "the published digest is not UTF-8") from None


def judge(spec: dict[str, Any], bundle: str, table_file: str) -> None:
    """What check refuses, before any job, from the table's footer alone: a column of a
    type the recipe does not define (unsupported_type, _formatter), then the published
    digest's file (published). The run's preflight on a shipped bundle (audit/preflight.py),
    so the lock's refusal never leaves a log under the arm's folder."""
    path = Path(bundle) / table_file
    if not path.is_file():
        return  # not there: missing_file, the bundle's own check
    shown = str(path)
    try:
        schema = pl.read_parquet_schema(path)
    except Exception:  # noqa: BLE001 - any unreadable file: the lock's refusal, not this one
        return
    for name in sorted(schema):
        _formatter(schema[name], False, name, shown)
    published(Path(bundle) / spec["file"])


def check(spec: dict[str, Any], bundle: str, table_file: str) -> dict[str, Any]:
    """What the lock records: the published and recomputed digests and their status."""
    recomputed = recompute(str(Path(bundle) / table_file))
    digest = published(Path(bundle) / spec["file"])
    status = "absent" if digest is None else "matches" if digest == recomputed else "differs"
    return {**spec, "published": digest, "recomputed": recomputed, "status": status}
