"""The demo bundle through each contestant, against values worked out by hand.

The hand working is in audit/bundles/demo.py's docstring; each expectation
below repeats the arithmetic it rests on. Each implementation is checked on
its own, so agreement between the two cannot hide a shared mistake.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import IMPL_PARAMS, ROOT, read_csv_rows, run_impl

PREREG = ROOT / "prereg" / "demo.yaml"

# (row, column) -> (class, best_tier, policies)
EXPECTED_MEASURED = {
    ("demo/m1", "model"): ("reproduced", "0", "-"),
    ("demo/m1", "alpha_score"): ("reproduced", "0", "A"),  # A 3/8 = 37.5; B 3/7
    ("demo/m1", "beta_score"): ("reproduced", "0", "A;B"),  # 2/4 = 50
    ("demo/m1", "alpha_cost"): ("reproduced", "0", "C"),  # C 8/7 -> 1.1429; D 1.0
    ("demo/m1", "beta_cost"): ("reproduced", "0", "C;D"),  # 0.5
    ("demo/m1", "average_score"): ("reproduced", "0", "A"),  # (37.5 + 50)/2 = 43.75
    ("demo/m1", "average_cost"): ("reproduced", "0", "C"),  # (8/7 + 0.5)/2 -> 0.8214
    ("demo/m2", "model"): ("reproduced", "0", "-"),
    ("demo/m2", "alpha_score"): ("reproduced", "1", "A;B"),  # 66.67 vs 66.62: 0.0467
    ("demo/m2", "beta_score"): ("reproduced", "2", "A;B"),  # 70.0 vs 70.3
    ("demo/m2", "alpha_cost"): ("reproduced", "0", "C;D"),  # 0.7/3 -> 0.2333
    ("demo/m2", "beta_cost"): ("reproduced", "1", "C;D"),  # 0.25 vs 0.253
    ("demo/m2", "average_score"): ("reproduced", "0", "A;B"),  # 68.333 -> 68.33
    ("demo/m2", "average_cost"): ("reproduced", "0", "C;D"),  # 0.241667 -> 0.2417
    ("demo/m3", "model"): ("reproduced", "0", "-"),
    ("demo/m3", "alpha_score"): ("reproduced", "0", "A"),  # A 0/5; B no data
    ("demo/m3", "beta_score"): ("no_data", "", ""),  # no beta rows
    ("demo/m3", "alpha_cost"): ("reproduced", "0", "D"),  # all null: D 0.0, C no data
    ("demo/m3", "beta_cost"): ("no_data", "", ""),
    ("demo/m3", "average_score"): ("reproduced", "0", "A"),
    ("demo/m3", "average_cost"): ("reproduced", "0", "D"),
    ("demo/m4", "model"): ("divergent", "", ""),  # m4-large vs m4-base
    ("demo/m4", "alpha_score"): ("divergent", "", ""),  # 25 vs 40
    ("demo/m4", "beta_score"): ("reproduced", "0", "A;B"),  # 100
    ("demo/m4", "alpha_cost"): ("reproduced", "2", "C;D"),  # 2.5 vs 2.54
    ("demo/m4", "beta_cost"): ("reproduced", "0", "D"),  # D 0.2/2 = 0.1; C 0.2
    ("demo/m4", "average_score"): ("divergent", "", ""),  # 62.5 vs 70
    ("demo/m4", "average_cost"): ("reproduced", "0", "D"),  # D 1.3; C 1.35000000000000009
}

# (row, column, policy) -> (published, recomputed, abs_diff, tier), worked by hand
EXPECTED_CELLS = {
    # 3/7 * 100 = 42.857142857...; |37.5 - 42.857143| = 5.357143
    ("demo/m1", "alpha_score", "B"): ("37.500000", "42.857143", "5.357143", "divergent"),
    # the double nearest 1.35 is 1.350000000000000088817...; exactly 0.05000000000000008882
    # from the published 1.3, just past the 0.05 tier although it prints as 0.050000
    ("demo/m4", "average_cost", "C"): ("1.300000", "1.350000", "0.050000", "divergent"),
    ("demo/m4", "average_cost", "D"): ("1.300000", "1.300000", "0.000000", "0"),
    # 200/3 = 66.666666...67; |66.62 - 66.666667| = 0.046667 <= 0.05, rounded 66.6 != 66.7
    ("demo/m2", "alpha_score", "A"): ("66.620000", "66.666667", "0.046667", "1"),
    ("demo/m3", "beta_score", "A"): ("", "", "", "no_data"),
    ("demo/m3", "alpha_score", "B"): ("0.000000", "", "", "no_data"),
    ("demo/m4", "model", "-"): ("m4-large", "m4-base", "", "divergent"),
    # published values of the other kinds, as the contract formats them
    ("demo/m2", "notes", "-"): ("second, with a comma", "", "", ""),
    ("demo/m4", "notes", "-"): ('quote "inside"', "", "", ""),
    ("demo/m3", "notes", "-"): ("", "", "", ""),
    ("demo/m1", "open_weights", "-"): ("true", "", "", ""),
    ("demo/m3", "open_weights", "-"): ("", "", "", ""),
    ("demo/m1", "categories_completed", "-"): ("2", "", "", ""),
    ("demo/m2", "runtime", "-"): ("7.250000", "", "", ""),
}


@pytest.fixture(scope="module", params=IMPL_PARAMS)
def demo_out(request, impl_envs, demo_bundle: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp(f"demo-{request.param}")
    res = run_impl(request.param, PREREG, demo_bundle, out)
    assert res.code == 0, res.stderr
    return out


def test_every_measured_cell_has_its_hand_worked_class(demo_out: Path) -> None:
    census = read_csv_rows(demo_out / "census.csv")
    got = {
        (r["row_id"], r["column"]): (r["class"], r["best_tier"], r["policies"])
        for r in census
        if (r["row_id"], r["column"]) in EXPECTED_MEASURED
    }
    assert got == EXPECTED_MEASURED


def test_census_totals_sum_to_rows_times_columns(demo_out: Path) -> None:
    census = read_csv_rows(demo_out / "census.csv")
    assert len(census) == 4 * 14
    counts: dict[str, int] = {}
    for r in census:
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    # 3 structural and 4 no-antecedent columns of 4 rows; the measured classes above
    assert counts == {
        "structural": 12,
        "no_antecedent": 16,
        "reproduced": 23,
        "divergent": 3,
        "no_data": 2,
    }


def test_selected_cells_match_hand_arithmetic(demo_out: Path) -> None:
    cells = {
        (r["row_id"], r["column"], r["policy"]): r for r in read_csv_rows(demo_out / "cells.csv")
    }
    for key, (pub, rec, diff, tier) in EXPECTED_CELLS.items():
        row = cells[key]
        assert (row["published"], row["recomputed"], row["abs_diff"], row["tier"]) == (
            pub,
            rec,
            diff,
            tier,
        ), key


def test_divergent_cells_carry_their_smallest_difference(demo_out: Path) -> None:
    census = {(r["row_id"], r["column"]): r for r in read_csv_rows(demo_out / "census.csv")}
    assert census[("demo/m4", "alpha_score")]["min_abs_diff"] == "15.000000"  # |40 - 25|
    assert census[("demo/m4", "average_score")]["min_abs_diff"] == "7.500000"  # |70 - 62.5|
    assert census[("demo/m4", "model")]["min_abs_diff"] == ""


def test_cells_are_sorted_and_complete(demo_out: Path) -> None:
    rows = read_csv_rows(demo_out / "cells.csv")
    keys = [(r["row_id"], r["column"], r["policy"]) for r in rows]
    assert keys == sorted(keys)
    # 7 unmeasured columns x 4 rows + (6 two-policy columns x 2 + model) x 4 rows
    assert len(rows) == 7 * 4 + (6 * 2 + 1) * 4
    header = (demo_out / "cells.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "row_id,column,kind,policy,published,recomputed,abs_diff,tier"
