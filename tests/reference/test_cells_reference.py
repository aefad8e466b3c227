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
import yaml

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
    # a cell is judged at the decimals it prints, never fewer than exact_decimals: 21.04
    # in a column declared at 1 is judged at 2, so 21.0 is 0.04 away (tier 1), not equal
    assert cells_v1.tier_of(21.04, 21.0, cat) == cells_v1.PolicyCell("21.000000", "0.040000", "1")
    # 74.4 at exact_decimals 2 reads as 74.40: 74.4 recomputed is tier 0
    assert cells_v1.tier_of(74.4, 74.4, {"exact_decimals": 2, "tiers": []}).tier == "0"
    # tier_unit last_digit: tiers [5] is 0.05 at two printed decimals, 0.5 at one
    last = {"exact_decimals": "published", "tiers": [5], "tier_unit": "last_digit"}
    assert cells_v1.tier_of(21.04, 21.0, last).tier == "1"
    assert cells_v1.tier_of(21.04, 20.98, last).tier == "divergent"  # 0.06 > 0.05
    assert cells_v1.tier_of(74.4, 74.0, last).tier == "1"  # 0.4 <= 0.5
    # mean with scale: 100 * (1 + 2) / 2; sum: the exact sum rounded once
    assert cells_v1.mean_of([1.0, 2.0], 100) == 150.0
    assert cells_v1.sum_of([0.1, 0.2]) == 0.30000000000000004
    assert cells_v1.sum_of([1.7e308, 1.7e308]) is None  # beyond the largest double
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


def test_the_reference_on_sums_fixed_denominators_and_scales(tmp_path: Path) -> None:
    """The recipes sum, denominator {fixed: N} and a mean's scale, on the bundle of
    tests/test_totals_denominators.py, whose every value is worked by hand there."""
    from tests.small_board import SCHEMA, write_bundle, write_prereg
    from tests.test_totals_denominators import (
        EXPECTED,
        INSTANCES,
        MEASURED,
        PUBLISHED,
        TOLERANCE,
    )

    bundle = write_bundle(tmp_path / "bundle", PUBLISHED, INSTANCES, SCHEMA)
    prereg = write_prereg(tmp_path / "p.yaml", MEASURED, TOLERANCE)
    cells, census = cells_v1.recompute(prereg, bundle)
    assert {k: cells[k].recomputed for k in EXPECTED} == EXPECTED
    for column in PUBLISHED:
        if column != "id":
            assert [census[(r, column)][0] for r in "abc"] == [
                "reproduced",
                "reproduced",
                "no_data",
            ]
    assert cells[("a", "resolved_of5", "A")].tier == "0"
    assert cells[("a", "resolved_of5", "B")].tier == "divergent"


def test_the_reference_shares_no_code() -> None:
    """The third method imports neither contestant, nor the referee, nor their libraries."""
    import ast

    banned = {"impl_pandas", "impl_pyarrow", "audit", "controls", "secondseat", "pandas",
              "pyarrow", "numpy", "fastparquet"}  # fmt: skip
    for f in sorted((ROOT / "tests" / "reference").glob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                 for a in n.names}  # fmt: skip
        names |= {n.module.split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.ImportFrom) and n.module}  # fmt: skip
        assert not names & banned, f"{f.name} imports {sorted(names & banned)}"


def test_the_reference_feasibility_on_the_hand_worked_edges(tmp_path: Path) -> None:
    """Feasibility verdicts and the census class `infeasible`, on the bundle and the
    values tests/test_feasibility_contestants.py works by hand (test_edges_by_hand)."""
    from tests.test_feasibility_contestants import _edge_bundle, _edge_prereg

    values = [87.1, 87.64, 86.51, 0.0, 100.0, 100.1, -0.1, float("nan"), None, 50.0, 50.0,
              50.0, 0.05, 1e-300]  # fmt: skip
    counts = [89, 89, 89, 89, 89, 89, 89, 89, 89, None, 0, 2, 2000, 1]
    bundle = _edge_bundle(tmp_path / "b", values, counts)
    prereg = _edge_prereg(tmp_path / "p.yaml", {"column": "n"})
    decl = yaml.safe_load(prereg.read_text(encoding="utf-8"))["feasibility"]
    inf, fea, nv, nc = "infeasible", "feasible", "no_value", "no_count"
    expect = [[inf] * 3, [fea] * 3, [inf, inf, fea], [fea] * 3, [fea] * 3, [inf] * 3,
              [inf] * 3, [nv] * 3, [nv] * 3, [nc] * 3, [nc] * 3, [fea] * 3, [fea] * 3,
              [inf] * 3]  # fmt: skip
    for value, n, want in zip(values, counts, expect, strict=True):
        got = [cells_v1.feasible(value, n, decl[c]) for c in ("v_even", "v_up", "v_trunc")]
        assert got == want, (value, n)
    _, census = cells_v1.recompute(prereg, bundle)
    assert census[("r000", "v_even")][0] == "infeasible"
    assert census[("r002", "v_trunc")][0] == "no_antecedent"  # feasible stays its kind
    assert census[("r009", "v_even")][0] == "no_antecedent"  # no_count too


def test_the_reference_on_a_universe_of_instance_ids(tmp_path: Path) -> None:
    """denominator {universe: ...}, on the bundle and hand values of
    tests/test_totals_denominators.py (test_a_universe_of_instance_ids, ..._refuses)."""
    from tests.small_board import SCHEMA, write_bundle, write_prereg
    from tests.test_totals_denominators import INSTANCES, TOLERANCE, _universe

    published = {"id": ["a", "b", "c"], "resolved_u": [40.0, 20.0, 1.0]}
    bundle = write_bundle(tmp_path / "bundle", published, INSTANCES, SCHEMA)
    ids = ["1", "2", "3", "4", "5"]
    prereg = write_prereg(tmp_path / "p.yaml", [_universe("as_null", ids)], TOLERANCE)
    cells, _ = cells_v1.recompute(prereg, bundle)
    got = {k[0] + k[2]: c.recomputed for k, c in cells.items() if k[1] == "resolved_u"}
    assert got == {"aA": "40.000000", "aB": "66.666667", "bA": "20.000000",
                   "bB": "50.000000", "cA": "", "cB": ""}  # fmt: skip
    for missing, universe in (("refuse", ids), ("as_null", ["1", "2", "3", "5"])):
        prereg = write_prereg(tmp_path / "q.yaml", [_universe(missing, universe)], TOLERANCE)
        with pytest.raises(ValueError, match="^bad_denominator"):
            cells_v1.recompute(prereg, bundle)
