"""The recipes a total, a declared denominator and a scale need (docs/contract.md, Recipes):
`sum`; `denominator: {fixed: N}` on a rate or a mean (the instances a row does not
list count as null ones, so `failure` and `zero` count them and `exclude` leaves
them out); `scale` on a mean; and `bad_denominator` for a row listing more
instances than its denominator. Both contestants, and the referee's own exact
arithmetic (controls.exact, which predicts every control).

The bundle, and every expected value worked out by hand:
- row a lists 4 instances: resolved T, T, F, null; cost 0.25, 0.5, null, 1.0
- row b lists 2: resolved T, F; cost 0.125, 0.375
- row c lists none.
resolved, rows as listed:  a A 2/4 = 50, B 2/3 = 66.666...; b 1/2 = 50
resolved of 5:             a A 2/5 = 40, B 2/3 (unchanged); b A 1/5 = 20, B 1/2 = 50
cost total (C and D alike): a 0.25 + 0.5 + 1.0 = 1.75; b 0.5
cost mean x 100:           a C 175/3 = 58.333..., D 175/4 = 43.75; b C = D = 25
cost mean of 5:            a C 1.75/3 = 0.58333..., D 1.75/5 = 0.35; b C 0.25, D 0.1
row c: no data everywhere (a row that lists nothing is not filled in as unlisted).
"""

from __future__ import annotations

from fractions import Fraction

import polars as pl
import pytest

from audit.cells.prereg import load_record
from tests.conftest import IMPL_PARAMS, run_impl
from tests.small_board import SCHEMA, recompute, write_bundle, write_prereg

INSTANCES = [
    {"id": "a", "group": "g", "instance_id": "1", "resolved": True, "cost": 0.25},
    {"id": "a", "group": "g", "instance_id": "2", "resolved": True, "cost": 0.5},
    {"id": "a", "group": "g", "instance_id": "3", "resolved": False, "cost": None},
    {"id": "a", "group": "g", "instance_id": "4", "resolved": None, "cost": 1.0},
    {"id": "b", "group": "g", "instance_id": "1", "resolved": True, "cost": 0.125},
    {"id": "b", "group": "g", "instance_id": "2", "resolved": False, "cost": 0.375},
]
PUBLISHED = {
    "id": ["a", "b", "c"],
    "resolved_rows": [50.0, 50.0, 1.0],
    "resolved_of5": [40.0, 20.0, 1.0],
    "cost_total": [1.75, 0.5, 1.0],
    "cost_pct": [43.75, 25.0, 1.0],
    "cost_of5": [0.35, 0.1, 1.0],
}
MEASURED = [
    "resolved_rows: {recipe: rate, source: resolved, group: g, scale: 100, policies: [A, B], tolerance: t}",
    "resolved_of5: {recipe: rate, source: resolved, group: g, scale: 100, denominator: {fixed: 5}, policies: [A, B], tolerance: t}",
    "cost_total: {recipe: sum, source: cost, group: g, policies: [C, D], tolerance: t}",
    "cost_pct: {recipe: mean, source: cost, group: g, scale: 100, policies: [C, D], tolerance: t}",
    "cost_of5: {recipe: mean, source: cost, group: g, denominator: {fixed: 5}, policies: [C, D], tolerance: t}",
]
TOLERANCE = ["t: {exact_decimals: published, tiers: [0.0005]}"]
# (row, column, policy) -> recomputed as cells.csv writes it (six decimals), by hand above
EXPECTED = {
    ("a", "resolved_rows", "A"): "50.000000",
    ("a", "resolved_rows", "B"): "66.666667",
    ("b", "resolved_rows", "A"): "50.000000",
    ("a", "resolved_of5", "A"): "40.000000",
    ("a", "resolved_of5", "B"): "66.666667",
    ("b", "resolved_of5", "A"): "20.000000",
    ("b", "resolved_of5", "B"): "50.000000",
    ("a", "cost_total", "C"): "1.750000",
    ("a", "cost_total", "D"): "1.750000",
    ("b", "cost_total", "C"): "0.500000",
    ("a", "cost_pct", "C"): "58.333333",
    ("a", "cost_pct", "D"): "43.750000",
    ("b", "cost_pct", "D"): "25.000000",
    ("a", "cost_of5", "C"): "0.583333",
    ("a", "cost_of5", "D"): "0.350000",
    ("b", "cost_of5", "C"): "0.250000",
    ("b", "cost_of5", "D"): "0.100000",
}


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return write_bundle(tmp_path_factory.mktemp("totals") / "bundle", PUBLISHED, INSTANCES, SCHEMA)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_sum_fixed_denominators_and_scale(impl, impl_envs, board, tmp_path) -> None:
    prereg = write_prereg(tmp_path / "p.yaml", MEASURED, TOLERANCE)
    found = recompute(impl, prereg, board, tmp_path / "out")
    for key, want in EXPECTED.items():
        assert found["cells"][key]["recomputed"] == want, key
    for column in PUBLISHED:
        if column != "id":
            assert found["census"][("a", column)]["class"] == "reproduced", column
            assert found["census"][("b", column)]["class"] == "reproduced", column
            assert found["census"][("c", column)]["class"] == "no_data", column
    # the denominator decides the class: row a's published 40 is 2/5, not 2/4 or 2/3
    assert found["cells"][("a", "resolved_of5", "A")]["tier"] == "0"
    assert found["cells"][("a", "resolved_of5", "B")]["tier"] == "divergent"


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_row_listing_more_than_its_denominator_is_refused(
    impl, impl_envs, board, tmp_path
) -> None:
    measured = [
        "resolved_of3: {recipe: rate, source: resolved, group: g, scale: 100, denominator: {fixed: 3}, policies: [A], tolerance: t}"
    ]
    folder = write_bundle(
        tmp_path / "bundle",
        {"id": ["a", "b"], "resolved_of3": [1.0, 1.0]},
        INSTANCES,
        SCHEMA,
    )
    prereg = write_prereg(tmp_path / "p.yaml", measured, TOLERANCE)
    r = run_impl(impl, prereg, folder, tmp_path / "out")
    assert r.code == 2, r.stderr
    line = r.stderr.strip()
    assert line.startswith(f"error[bad_denominator]: {folder / 'instances.parquet'}: "), line
    assert "'a'" in line and "4" in line and "3" in line and "\n" not in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "column",
    [
        "cost_total: {recipe: sum, source: cost, group: g, denominator: {fixed: 5}, policies: [C], tolerance: t}",
        "cost_total: {recipe: sum, source: cost, group: g, policies: [A], tolerance: t}",
        "resolved_rows: {recipe: rate, source: resolved, group: g, scale: 100, denominator: {fixed: 0}, policies: [A], tolerance: t}",
        "cost_pct: {recipe: mean, source: cost, group: g, scale: 0, policies: [C], tolerance: t}",
    ],
    ids=["sum-with-denominator", "sum-with-rate-policy", "fixed-zero", "scale-zero"],
)
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_malformed_recipe_is_refused(impl, column, impl_envs, board, tmp_path) -> None:
    name = column.split(":")[0]
    folder = write_bundle(tmp_path / "bundle", {"id": ["a"], name: [1.0]}, INSTANCES[:1], SCHEMA)
    prereg = write_prereg(tmp_path / "p.yaml", [column], TOLERANCE)
    r = run_impl(impl, prereg, folder, tmp_path / "out")
    assert r.code == 2 and r.stderr.startswith("error[bad_prereg]:"), r.stderr


def test_the_referees_exact_arithmetic_agrees(board, tmp_path) -> None:
    """controls.exact (the referee's own Fractions, which every control's prediction uses)
    gives the hand values exactly."""

    from controls import exact

    doc = load_record(write_prereg(tmp_path / "p.yaml", MEASURED, TOLERANCE))
    inst = exact.ByRow(pl.read_parquet(board / "instances.parquet"), doc)
    want = {
        ("a", "resolved_of5", "A"): Fraction(40),
        ("a", "resolved_of5", "B"): Fraction(200, 3),
        ("b", "resolved_of5", "A"): Fraction(20),
        ("a", "cost_total", "D"): Fraction(7, 4),
        ("a", "cost_pct", "C"): Fraction(175, 3),
        ("a", "cost_pct", "D"): Fraction(175, 4),
        ("a", "cost_of5", "C"): Fraction(7, 12),
        ("a", "cost_of5", "D"): Fraction(7, 20),
        ("b", "cost_of5", "D"): Fraction(1, 10),
        ("c", "cost_of5", "D"): None,
        ("c", "resolved_of5", "A"): None,
    }
    for (row, column, policy), value in want.items():
        assert exact.cell(inst, doc, row, column, policy) == value, (row, column, policy)


def _predicted(board, tmp_path, control: str) -> tuple[dict, dict]:
    """controls.predict's table for one control on the board: (row, column, policy) -> change."""
    import csv
    import io

    from controls import predict

    doc = load_record(write_prereg(tmp_path / "p.yaml", MEASURED, TOLERANCE, [f"c: {control}"]))
    text, selection = predict.predict(doc, str(board), "c")
    rows = csv.DictReader(io.StringIO(text))
    return {(r["row_id"], r["column"], r["policy"]): r["change"] for r in rows}, selection


def test_controls_predict_sums_scales_and_fixed_denominators(board, tmp_path) -> None:
    """A control's predicted change in every column reading its source, by hand:
    shifting one of row a's costs by 0.5 moves the total by 0.5, the mean x 100 by
    100 * 0.5 / 3 (C) and / 4 (D), the mean of 5 by 0.5 / 3 (C) and 0.5 / 5 (D);
    flipping one of row a's true outcomes moves the rate of 5 by -100 / 5 under A."""
    shift, _ = _predicted(
        board, tmp_path, "{kind: shift, column: cost_pct, target: {row_id: a}, size: 0.5}"
    )
    assert shift[("a", "cost_total", "C")] == shift[("a", "cost_total", "D")] == "+0.500000"
    assert shift[("a", "cost_pct", "C")] == "+16.666667"
    assert shift[("a", "cost_pct", "D")] == "+12.500000"
    assert shift[("a", "cost_of5", "C")] == "+0.166667"
    assert shift[("a", "cost_of5", "D")] == "+0.100000"
    flip, _ = _predicted(
        board, tmp_path, "{kind: flip, column: resolved_of5, target: {row_id: a}, size: 1}"
    )
    assert flip[("a", "resolved_of5", "A")] == "-20.000000"
    assert flip[("a", "resolved_of5", "B")] == "-33.333333"
    assert flip[("a", "resolved_rows", "A")] == "-25.000000"
    nullify, selection = _predicted(
        board, tmp_path, "{kind: nullify, column: cost_of5, target: {row_id: b}, size: 1}"
    )
    # b's costs are 0.125 and 0.375; whichever the seed nulls leaves the total at the
    # other, the mean of 5 under D at the other / 5 (b still lists 2 of its 5)
    gone = {"1": 0.125, "2": 0.375}[selection["instances"][0][2]]
    assert nullify[("b", "cost_total", "D")] == f"-{gone:.6f}"
    assert nullify[("b", "cost_of5", "D")] == f"-{gone / 5:.6f}"


def _universe(missing: str, ids: list[str], column: str = "instance_id") -> str:
    spec = f"{{column: {column}, ids: [{', '.join(repr(i) for i in ids)}], missing: {missing}}}"
    return (
        "resolved_u: {recipe: rate, source: resolved, group: g, scale: 100, "
        f"denominator: {{universe: {spec}}}, policies: [A, B], tolerance: t}}"
    )


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_universe_of_instance_ids(impl, impl_envs, tmp_path) -> None:
    """Universe 1..5 (as_null): a lists 1-4, b lists 1-2, so N = 5 as with {fixed: 5}:
    a A 2/5 = 40, B 2/3; b A 1/5 = 20, B 1/2 = 50; c lists nothing: no data."""
    folder = write_bundle(
        tmp_path / "bundle",
        {"id": ["a", "b", "c"], "resolved_u": [40.0, 20.0, 1.0]},
        INSTANCES,
        SCHEMA,
    )
    prereg = write_prereg(
        tmp_path / "p.yaml", [_universe("as_null", ["1", "2", "3", "4", "5"])], TOLERANCE
    )
    found = recompute(impl, prereg, folder, tmp_path / "out")
    got = {k[0] + k[2]: c["recomputed"] for k, c in found["cells"].items() if k[1] == "resolved_u"}
    assert got == {
        "aA": "40.000000",
        "aB": "66.666667",
        "bA": "20.000000",
        "bB": "50.000000",
        "cA": "",
        "cB": "",
    }


@pytest.mark.parametrize(
    ("missing", "ids", "column", "kind", "words"),
    [
        (
            "refuse",
            ["1", "2", "3", "4", "5"],
            "instance_id",
            "bad_denominator",
            "'5'",
        ),  # a leaves out 5
        ("as_null", ["1", "2", "3", "5"], "instance_id", "bad_denominator", "'4'"),  # a lists 4
        ("as_null", ["1", "2"], "cost", "bad_type", "cost"),  # ids in a column of doubles
        ("as_null", ["1", "2"], "nowhere", "missing_column", "nowhere"),
    ],
    ids=["missing-refused", "outside", "not-strings", "absent"],
)
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_universe_refuses(impl, missing, ids, column, kind, words, impl_envs, tmp_path) -> None:
    folder = write_bundle(
        tmp_path / "bundle", {"id": ["a", "b"], "resolved_u": [40.0, 20.0]}, INSTANCES, SCHEMA
    )
    prereg = write_prereg(tmp_path / "p.yaml", [_universe(missing, ids, column)], TOLERANCE)
    r = run_impl(impl, prereg, folder, tmp_path / "out")
    assert r.code == 2, r.stderr
    line = r.stderr.strip()
    assert line.startswith(f"error[{kind}]: {folder / 'instances.parquet'}: "), line
    assert words in line and "\n" not in line
    assert not (tmp_path / "out").exists()
