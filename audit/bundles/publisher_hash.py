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
column, before the lock writes anything), not guessed. A list, array, struct or map
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
        else ""
    )
    raise AuditError(
        "unsupported_type",
        path,
        f"column {column!r} is {dtype}: the publisher_hash recipe does not define it{why};"
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


def check(spec: dict[str, Any], bundle: str, table_file: str) -> dict[str, Any]:
    """What the lock records: the published and recomputed digests and their status."""
    published_path = Path(bundle) / spec["file"]
    recomputed = recompute(str(Path(bundle) / table_file))
    published = None
    if published_path.is_file():
        published = published_path.read_text(encoding="utf-8").strip()
    status = "absent" if published is None else "matches" if published == recomputed else "differs"
    return {**spec, "published": published, "recomputed": recomputed, "status": status}
