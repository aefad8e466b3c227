"""Tiny golden bundle on the edges of the arithmetic, worked by hand.

Every row has 16 instances with 9 resolved: 100 * 9 / 16 = 56.25 exactly.
- r1 published 56.2: rounded half to even at 1 decimal, 56.25 -> 56.2, so
  tier 0 (half-up rounding would give 56.3 and miss it); |diff| 0.05.
- r2 published 56.3: 56.2 != 56.3 at 1 decimal; |56.3 - 56.25| = 0.05
  exactly (in decimal; the float subtraction gives 0.04999999999999716), so
  tier 1 by the exact comparison <= 0.05.
- r3 published 56.31: |diff| 0.06 > 0.05, <= 0.5: tier 2.
Costs, four rows each [1e16, 1, -1e16, 1]: the exact sum is 2, the mean 0.5.
A left-to-right float sum gives 1/4 = 0.25 (1e16 + 1 rounds back to 1e16),
so a contestant not using an exactly rounded sum lands on 0.25, divergent.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPL_PARAMS, read_csv_rows, run_impl

PREREG = """\
version: 1
name: rounding
bundle: {leaderboard: lb.parquet, instances: inst.parquet, row_id: id,
         instance_key: [id, instance_id], group_by: g}
rounding: half_even
nan_in_sources: as_null
columns:
  structural: [id]
  no_antecedent: []
  measured:
    s: {recipe: rate, source: ok, group: x, scale: 100, policies: [A], tolerance: score}
    c: {recipe: mean, source: cost, group: x, policies: [C], tolerance: cost}
policies:
  A: {recipe: rate, nulls: failure, description: "null is a failure"}
  C: {recipe: mean, nulls: exclude, description: "null is left out"}
tolerances:
  score: {exact_decimals: 1, tiers: [0.05, 0.5]}
  cost: {exact_decimals: 4, tiers: [0.005, 0.05]}
seed: 1
null_draws: 10
chance: {epsilon: 1.0e-12, threshold: 0.001}
controls: {}
disclosure: {auditor: the tests, relations: [], publication: not published}
"""


def make_bundle(root: Path) -> tuple[Path, Path]:
    ids = ["r1", "r2", "r3"]
    pl.DataFrame({"id": ids, "s": [56.2, 56.3, 56.31], "c": [0.5, 0.5, 0.5]}).write_parquet(
        root / "lb.parquet"
    )
    rows = []
    costs = [1e16, 1.0, -1e16, 1.0]
    for rid in ids:
        for n in range(16):
            rows.append((rid, f"i{n:02d}", "x", n < 9, costs[n] if n < 4 else None))
    pl.DataFrame(
        rows,
        schema={
            "id": pl.String,
            "instance_id": pl.String,
            "g": pl.String,
            "ok": pl.Boolean,
            "cost": pl.Float64,
        },
        orient="row",
    ).write_parquet(root / "inst.parquet")
    prereg = root / "prereg.yaml"
    prereg.write_text(PREREG, encoding="utf-8")
    return prereg, root


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_half_even_exact_tiers_and_exact_sums(impl: str, impl_envs, tmp_path: Path) -> None:
    prereg, bundle = make_bundle(tmp_path)
    res = run_impl(impl, prereg, bundle, tmp_path / "out")
    assert res.code == 0, res.stderr
    cells = {(r["row_id"], r["column"]): r for r in read_csv_rows(tmp_path / "out" / "cells.csv")}
    got = {k: (v["recomputed"], v["abs_diff"], v["tier"]) for k, v in cells.items() if k[1] != "id"}
    assert got == {
        ("r1", "s"): ("56.250000", "0.050000", "0"),
        ("r2", "s"): ("56.250000", "0.050000", "1"),
        ("r3", "s"): ("56.250000", "0.060000", "2"),
        ("r1", "c"): ("0.500000", "0.000000", "0"),
        ("r2", "c"): ("0.500000", "0.000000", "0"),
        ("r3", "c"): ("0.500000", "0.000000", "0"),
    }
