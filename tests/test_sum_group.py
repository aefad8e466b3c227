"""A sum column keeps only its group's instance rows, in both contestants (issue 27).

docs/contract.md, Recipes: "a recipe with a group keeps only those whose bundle.group_by
column equals the group", and the schema requires a sum's group. impl_pyarrow read a
sum's group as absent and summed every instance row of the leaderboard row, so a sum
over one group of a bundle with two disagreed with impl_pandas: after the lock, the
run ended in implementations_disagree (exit 1). The demo bundle has groups alpha and
beta; the sum of alpha's costs per row is worked out here by a polars group-by of the
instance table (an independent reading), published as the leaderboard's total_cost, and
the run must reproduce it under policy D (nulls zero), both contestants agreeing.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import polars as pl

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

COLUMN = "total_cost: {recipe: sum, source: cost, group: alpha, policies: [C, D], tolerance: cost}"


def test_a_sum_over_one_group_is_that_group_s_total(tmp_path: Path, demo_bundle: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    inst = pl.read_parquet(bundle / "instances.parquet")
    assert sorted(inst["group"].unique()) == ["alpha", "beta"]
    alpha = inst.filter(pl.col("group") == "alpha").group_by("id").agg(pl.col("cost").sum())
    totals = dict(alpha.iter_rows())  # demo/m1: 8.0 (its beta costs 2.0 more)
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    published = pl.Series("total_cost", [totals[i] for i in lb["id"]], dtype=pl.Float64)
    lb.with_columns(published).write_parquet(bundle / "leaderboard.parquet")
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    anchor = "    average_cost: {recipe: mean_of_columns"
    assert anchor in text
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(anchor, f"    {COLUMN}\n{anchor}", 1), encoding="utf-8")
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    for impl in ("pandas", "pyarrow"):
        cells = tmp_path / "results" / "demo" / "recompute" / impl / "run1" / "cells.csv"
        with cells.open(newline="", encoding="utf-8") as f:
            rows = [r for r in csv.DictReader(f) if r["column"] == "total_cost"]
        zero = {r["row_id"]: r for r in rows if r["policy"] == "D"}
        printed = {i: round(t, 6) for i, t in totals.items()}  # cells.csv: six decimals
        assert {i: float(r["recomputed"]) for i, r in zero.items()} == printed, impl
        assert {r["tier"] for r in zero.values()} == {"0"}, (impl, zero)  # tier 0: exact
