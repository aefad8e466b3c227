"""The real bundle's census against a third method (tests/reference/cells_v1.py).

The contestants agreeing shows they read the contract alike; a policy both misread
from the prereg would still move the headline. Here a recompute written apart from
both (polars for the parquet, exact fractions for the numbers, from the contract's
text) classes every one of the 1,292 cells, and the workflow's census must match it
cell for cell: class, best tier, policies, least abs_diff; and each policy's
recomputed value, abs_diff and tier in the contestants' cells.csv.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import REAL_BUNDLE, ROOT, read_csv_rows
from tests.reference import cells_v1

PREREG = ROOT / "prereg" / "openhands-index.yaml"


def test_tiers_by_hand() -> None:
    """The reference's own arithmetic on values worked by hand from the contract."""
    cat = {"exact_decimals": 1, "tiers": [0.05, 0.5]}
    # 56.25 is a double exactly: half to even at one decimal gives 56.2, as 56.2 does
    assert cells_v1.tier_of(56.2, 56.25, cat) == cells_v1.PolicyCell("56.250000", "0.050000", "0")
    # 74.8 against 100 * 374/500 = 74.8: equal
    assert cells_v1.tier_of(74.8, 374 * 100 / 500, cat).tier == "0"
    # 56.3 against 56.25: rounded 56.2 != 56.3; |56.3 - 56.25| is 0.05 exactly in decimal
    # (the double 56.25 is exact), so tier 1
    assert cells_v1.tier_of(56.3, 56.25, cat).tier == "1"
    # 0.6 apart: past the last tier
    assert cells_v1.tier_of(57.0, 56.4, cat).tier == "divergent"
    # published null or NaN with a recomputed value: divergent, no abs_diff
    assert cells_v1.tier_of(None, 1.0, cat) == cells_v1.PolicyCell("1.000000", "", "divergent")
    assert cells_v1.tier_of(float("nan"), 1.0, cat).abs_diff == ""
    assert cells_v1.tier_of(1.0, None, cat) == cells_v1.PolicyCell("", "", "no_data")
    # the mean: exact sum once rounded, then one division (0.1 + 0.2 + 0.3 sums
    # exactly to 0.6000000000000000055..., which rounds to the double 0.6)
    assert cells_v1.mean_of([0.1, 0.2, 0.3]) == 0.6 / 3
    # near the largest double: S / n exactly, rounded once
    assert cells_v1.mean_of([1e308, 1e308]) == 1e308
    assert cells_v1.six(Fraction(-1, 10**7)) == "0.000000"
    assert cells_v1.six(Fraction(25, 10**7)) == "0.000002"  # half to even
    assert cells_v1.six(Fraction(35, 10**7)) == "0.000004"


@pytest.fixture(scope="module")
def reference() -> tuple[dict, dict]:
    if not (REAL_BUNDLE / "test.parquet").is_file():
        pytest.skip(f"real bundle not present at ../shared/bundles/{REAL_BUNDLE.name}")
    return cells_v1.recompute(PREREG, REAL_BUNDLE)


@pytest.mark.realbundle
def test_the_reference_census_of_the_real_bundle(reference) -> None:
    """Its totals, as the project states them (README; tests/test_pipeline.py)."""
    _, census = reference
    classes = [c[0] for c in census.values()]
    assert len(census) == 1292
    assert {k: classes.count(k) for k in set(classes)} == {
        "structural": 136,
        "no_antecedent": 714,
        "reproduced": 341,
        "divergent": 101,
    }


def census_mismatches(census: dict, rows: list[dict[str, str]]) -> list[str]:
    """Every cell where the workflow's census differs from the reference, in words."""
    fields = ("class", "best_tier", "policies", "min_abs_diff")
    theirs = {(r["row_id"], r["column"]): tuple(r[f] for f in fields) for r in rows}
    out = [f"{k}: only the workflow has it" for k in sorted(theirs.keys() - census.keys())]
    out += [f"{k}: only the reference has it" for k in sorted(census.keys() - theirs.keys())]
    for key in sorted(census.keys() & theirs.keys()):
        if census[key] != theirs[key]:
            out.append(f"{key}: reference {census[key]}, workflow {theirs[key]}")
    return out


def cell_mismatches(cells: dict, rows: list[dict[str, str]]) -> list[str]:
    fields = ("recomputed", "abs_diff", "tier")
    theirs = {
        (r["row_id"], r["column"], r["policy"]): tuple(r[f] for f in fields)
        for r in rows
        if r["kind"] == "measured"
    }
    mine = {k: (c.recomputed, c.abs_diff, c.tier) for k, c in cells.items()}
    out = [f"{k}: only the workflow has it" for k in sorted(theirs.keys() - mine.keys())]
    out += [f"{k}: only the reference has it" for k in sorted(mine.keys() - theirs.keys())]
    for key in sorted(mine.keys() & theirs.keys()):
        if mine[key] != theirs[key]:
            out.append(f"{key}: reference {mine[key]}, workflow {theirs[key]}")
    return out


@pytest.mark.slow
@pytest.mark.realbundle
def test_the_workflow_census_matches_the_reference_cell_for_cell(reference, real_run: Path) -> None:
    cells, census = reference
    bad = census_mismatches(census, read_csv_rows(real_run / "census_cells.csv"))
    assert not bad, f"{len(bad)} of {len(census)} census cells differ:\n" + "\n".join(bad[:40])
    for impl in ("pandas", "pyarrow"):
        rows = read_csv_rows(real_run / "recompute" / impl / "run1" / "cells.csv")
        bad = cell_mismatches(cells, rows)
        assert not bad, f"{impl}: {len(bad)} policy cells differ:\n" + "\n".join(bad[:40])
