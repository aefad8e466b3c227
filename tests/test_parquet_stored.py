"""audit/bundles/parquet_stored.py: a column of kind integer read as the integers the file
stores, where polars reads it otherwise through Arrow's stored schema (issue 27).

The file is written by the pyarrow of impl_pyarrow's environment (polars writes no
duration in seconds). Expected values by hand: the integers written; what polars alone
reads of a duration in seconds is each times 1000 in 64 bits (2**62 * 1000 = 125 * 2**65,
a multiple of 2**64: 0).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from tests.conftest import impl_python, run

_WRITE = """
import sys
import pyarrow as pa, pyarrow.parquet as pq
pq.write_table(pa.table({
    "ARROW:schema": pa.array([1, 2**62, None], pa.duration("s")),
    "n": pa.array([5, 6, 7], pa.int64()),
    "d": pa.array([4, 5, 4], pa.duration("s")).dictionary_encode(),
    "nested": pa.array([{"x": 1}, None, {"x": 2}], pa.struct([("x", pa.duration("s"))])),
}), sys.argv[1])
"""


def test_seconds_are_read_as_stored_whatever_else_is_named_like_the_key(
    impl_envs, tmp_path: Path
) -> None:
    """A duration in seconds named ``ARROW:schema`` (the key's very bytes, in the footer's
    schema too), another dictionary-encoded, a plain integer and a struct of a duration:
    the durations read as the integers written (1, 2**62, null; 4, 5, 4), the others as
    polars reads them; only the footer's key is renamed, the column keeps its name."""
    from audit.bundles import parquet_stored

    path = tmp_path / "t.parquet"
    res = run([str(impl_python("pyarrow")), "-c", _WRITE, str(path)])
    assert res.code == 0, res.stderr
    alone = pl.read_parquet(path)
    assert alone["ARROW:schema"].cast(pl.Int64).to_list() == [1000, 0, None]
    assert alone["d"].cast(pl.Int64).to_list() == [4000, 5000, 4000]
    got = parquet_stored.read(path)
    assert got.columns == ["ARROW:schema", "n", "d", "nested"]
    assert got["ARROW:schema"].to_list() == [1, 2**62, None]
    assert got["d"].to_list() == [4, 5, 4]
    assert got["n"].to_list() == [5, 6, 7]
    assert got["nested"].dtype == alone["nested"].dtype  # kind other: as polars reads it
    data = path.read_bytes()
    hidden = parquet_stored.hidden_schema(path)
    assert len(hidden) == len(data)
    assert hidden.count(parquet_stored.KEY) == data.count(parquet_stored.KEY) - 1
    assert hidden.count(parquet_stored.HIDDEN) == data.count(parquet_stored.HIDDEN) + 1
    assert parquet_stored.read(path, ["n"])["n"].dtype == pl.Int64  # nothing to re-read
