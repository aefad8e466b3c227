"""Ids of any length (issue 13): a row id of 2 MB goes through both contestants, their
sharded null, and the referee's CSV reading.

The csv module refuses a field over 131,072 characters unless told otherwise;
reproduce.csv, cells.csv and census.csv carry the row id as one field. Expected
values: the null merged from one shard equals the null the contestant drew
itself (the contract's own identity), and the referee reads the id back whole.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPL_PARAMS, ROOT, copy_bundle, impl_python, run, run_impl

DEMO = ROOT / "prereg" / "demo.yaml"
LONG = "m" * 2_000_000


@pytest.fixture
def long_id_bundle(demo_bundle: Path, tmp_path: Path) -> Path:
    bundle = copy_bundle(demo_bundle, tmp_path / "bundle")
    board = pl.read_parquet(bundle / "leaderboard.parquet")
    first = board["id"][0]
    for name in ("leaderboard.parquet", "instances.parquet"):
        df = pl.read_parquet(bundle / name)
        df = df.with_columns(
            pl.when(pl.col("id") == first).then(pl.lit(LONG)).otherwise(pl.col("id")).alias("id")
        )
        df.write_parquet(bundle / name)
    return bundle


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_2mb_row_id_through_the_recompute_and_the_sharded_null(
    impl: str, impl_envs, long_id_bundle: Path, tmp_path: Path
) -> None:
    whole = tmp_path / "whole"
    res = run_impl(impl, DEMO, long_id_bundle, whole)
    assert res.code == 0, res.stderr
    py = str(impl_python(impl))
    nd = tmp_path / "nd"
    res = run([py, "-m", f"impl_{impl}", "--prereg", str(DEMO), "--bundle", str(long_id_bundle),
               "--out", str(nd), "--no-draws"])  # fmt: skip
    assert res.code == 0, res.stderr
    draws = int(next(ln for ln in DEMO.read_text().splitlines() if ln.startswith("null_draws:"))
                .split(":")[1])  # fmt: skip
    part = tmp_path / "part.csv"
    res = run([py, "-m", f"impl_{impl}", "null-draws", "--prereg", str(DEMO), "--table",
               str(nd / "reproduce.csv"), "--draws", f"0:{draws}", "--out", str(part)])  # fmt: skip
    assert res.code == 0, res.stderr
    merged = tmp_path / "merged"
    res = run([py, "-m", f"impl_{impl}", "null-merge", "--prereg", str(DEMO), "--table",
               str(nd / "reproduce.csv"), "--out", str(merged), str(part)])  # fmt: skip
    assert res.code == 0, res.stderr
    for name in ("nulls.csv", "null_hist.csv"):
        assert (merged / name).read_bytes() == (whole / name).read_bytes(), name


def test_the_referee_reads_a_2mb_row_id(impl_envs, long_id_bundle: Path, tmp_path: Path) -> None:
    """audit's CSV readers (report, census tables; the controls import audit) take any field."""
    from audit.report.leaderboard import _csv

    res = run_impl("pandas", DEMO, long_id_bundle, tmp_path / "out")
    assert res.code == 0, res.stderr
    ids = {r["row_id"] for r in _csv(tmp_path / "out" / "census.csv")}
    assert LONG in ids
