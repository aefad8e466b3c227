"""adapt-trials --format trial-table-v1: a folder holding a trial table an intake adapter
wrote, checked against the trial table's schema before a trials arm reads it."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from tests.conftest import run_audit
from tests.test_eee import TARGETS, write_record


def _bundle(tmp: Path) -> Path:
    agg = write_record(
        tmp / "src", "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS)
    )
    out = tmp / "bundle"
    assert run_audit("adapt-eee", agg, "--out", out).code == 0
    return out


def test_an_adapted_trial_table_is_taken_as_it_is(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    res = run_audit(
        "adapt-trials", "--jobs", bundle, "--format", "trial-table-v1", "--out", tmp_path / "o"
    )
    assert res.code == 0, res.stderr
    assert "4 rows; scored 4, errored 0, unscored 0" in res.stdout  # 4 instance lines, all scored
    doc = json.loads((tmp_path / "o" / "adapter.json").read_text())
    assert doc["format"] == "trial-table-v1"
    got = pl.read_parquet(tmp_path / "o" / "trials.parquet")
    assert got.equals(
        pl.read_parquet(bundle / "trials.parquet").sort("run", "task", "trial_id", "copy")
    )


def test_a_table_of_other_columns_or_none_is_refused(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path)
    table = pl.read_parquet(bundle / "trials.parquet")
    table.with_columns(pl.col("reward").cast(pl.String)).write_parquet(bundle / "trials.parquet")
    res = run_audit(
        "adapt-trials", "--jobs", bundle, "--format", "trial-table-v1", "--out", tmp_path / "o"
    )
    assert res.code == 2
    assert res.stderr.strip() == (
        f"error[bad_type]: {bundle / 'trials.parquet'}: column 'reward' is String, not Float64"
    )
    table.drop("reward").write_parquet(bundle / "trials.parquet")
    res = run_audit(
        "adapt-trials", "--jobs", bundle, "--format", "trial-table-v1", "--out", tmp_path / "o"
    )
    assert (
        res.code == 2
        and res.stderr.startswith("error[bad_type]:")
        and "missing ['reward']" in res.stderr
    )
    (bundle / "trials.parquet").unlink()
    res = run_audit(
        "adapt-trials", "--jobs", bundle, "--format", "trial-table-v1", "--out", tmp_path / "o"
    )
    assert res.code == 2 and res.stderr.startswith("error[missing_file]:")
    assert not (tmp_path / "o").exists()
