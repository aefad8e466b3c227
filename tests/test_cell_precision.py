"""Per-cell published precision (docs/contract.md, Tiers): tier 0 rounds the recomputed
value at the decimals the published cell prints (never fewer than a fixed
`exact_decimals`), and compares it with the published value as printed; with
`exact_decimals: published` each cell is judged at its own decimals alone, and
with `tier_unit: last_digit` a tier bound counts units of the cell's last digit.

The board prints 74.4 beside 64.93 and 21.04 in one column (issue 29). Every
expected value below is worked out by hand from the counts in the bundle:
- a: 105 of 500 resolved: R = 100 * 105 / 500 = 21 exactly; published 21.04
  (105 / 499, as the publisher divided). Two decimals apart: |P - R| = 0.04.
  The old column-wide rule (both rounded to 1 decimal: 21.0 = 21.0) called
  this "reproduced exactly"; judged at the two decimals it prints, 21.00 is
  not 21.04.
- b: 372 of 500: R = 74.4 exactly; published 74.4: tier 0 under every rule.
- c: 324 of 499: R = 32400 / 499 = 64.92985...; rounds to 64.93 at two
  decimals: tier 0 at the cell's own two decimals.
- d: 370 of 497: R = 37000 / 497 = 74.44668...; published 74.4 (one decimal):
  at its own one decimal R rounds to 74.4 (tier 0); held to two decimals
  (74.45 against 74.40) it is 0.04668... away.
"""

from __future__ import annotations

import pytest

from tests.conftest import IMPL_PARAMS
from tests.small_board import SCHEMA, outcomes, recompute, write_bundle, write_prereg

ROWS = ["a", "b", "c", "d"]


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    folder = tmp_path_factory.mktemp("precision")
    instances = [
        *outcomes("a", "g", 105, 395),
        *outcomes("b", "g", 372, 128),
        *outcomes("c", "g", 324, 175),
        *outcomes("d", "g", 370, 127),
    ]
    published = {"id": ROWS, "score": [21.04, 74.4, 64.93, 74.4]}
    return write_bundle(folder / "bundle", published, instances, SCHEMA)


def _run(impl, board, tmp_path, tolerance: str):
    prereg = write_prereg(
        tmp_path / "p.yaml",
        [
            "score: {recipe: rate, source: resolved, group: g, scale: 100, policies: [A], tolerance: t}"
        ],
        [f"t: {tolerance}"],
    )
    return recompute(impl, prereg, board, tmp_path / "out")


def _tiers(found) -> dict[str, str]:
    return {r: found["cells"][(r, "score", "A")]["tier"] for r in ROWS}


def _diagonal_agrees(found) -> None:
    """reproduce.csv's own character of each row is 1 exactly when its cell reproduced."""
    order = sorted(ROWS)
    for j, r in enumerate(order):
        own = found["reproduce"][("score", r)][j] == "1"
        assert own == (found["census"][(r, "score")]["class"] == "reproduced"), r


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_fixed_decimal_is_a_floor_a_cell_printing_more_is_judged_at_its_own(
    impl, impl_envs, board, tmp_path
) -> None:
    found = _run(impl, board, tmp_path, "{exact_decimals: 1, tiers: [0.005]}")
    # a: judged at 2 (it prints 2): 21.00 vs 21.04, |0.04| > 0.005: divergent, where the
    # column-wide rounding to 1 decimal called it tier 0
    assert _tiers(found) == {"a": "divergent", "b": "0", "c": "0", "d": "0"}
    assert found["census"][("a", "score")]["class"] == "divergent"
    assert found["cells"][("a", "score", "A")]["abs_diff"] == "0.040000"
    _diagonal_agrees(found)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_published_judges_every_cell_at_its_own_decimals(impl, impl_envs, board, tmp_path) -> None:
    found = _run(impl, board, tmp_path, "{exact_decimals: published, tiers: [0.005]}")
    assert _tiers(found) == {"a": "divergent", "b": "0", "c": "0", "d": "0"}
    _diagonal_agrees(found)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_fixed_two_decimals_holds_a_one_decimal_cell_to_two(
    impl, impl_envs, board, tmp_path
) -> None:
    # d prints 74.4; held to two decimals it is 74.40 against 74.4467 (0.0467 > 0.005)
    found = _run(impl, board, tmp_path, "{exact_decimals: 2, tiers: [0.005]}")
    assert _tiers(found) == {"a": "divergent", "b": "0", "c": "0", "d": "divergent"}
    _diagonal_agrees(found)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_tiers_in_units_of_the_last_printed_digit(impl, impl_envs, board, tmp_path) -> None:
    # 5 units of the last digit: a (two decimals) allows 0.05, so 0.04 is tier 1; d under
    # two fixed decimals allows 0.05 too: 0.0467 is tier 1. In published units a tier of
    # 5 would take everything, so the unit is what decides.
    found = _run(impl, board, tmp_path, "{exact_decimals: 2, tiers: [5], tier_unit: last_digit}")
    assert _tiers(found) == {"a": "1", "b": "0", "c": "0", "d": "1"}
    found = _run(impl, board, tmp_path, "{exact_decimals: 2, tiers: [4], tier_unit: last_digit}")
    # 4 units = 0.04: a's 0.04 exactly is within (exact comparison); d's 0.0467 is not
    assert _tiers(found) == {"a": "1", "b": "0", "c": "0", "d": "divergent"}
    _diagonal_agrees(found)


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_an_unknown_tier_unit_is_refused(impl, impl_envs, board, tmp_path) -> None:
    from tests.conftest import run_impl

    prereg = write_prereg(
        tmp_path / "p.yaml",
        [
            "score: {recipe: rate, source: resolved, group: g, scale: 100, policies: [A], tolerance: t}"
        ],
        ["t: {exact_decimals: 1, tiers: [1], tier_unit: percent}"],
    )
    r = run_impl(impl, prereg, board, tmp_path / "out")
    assert r.code == 2 and r.stderr.startswith("error[bad_prereg]:"), r.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_the_census_says_the_decimals_each_cell_was_judged_at(
    impl, impl_envs, board, tmp_path
) -> None:
    # a 21.04: 2 (it prints 2, more than the fixed 1); b, d 74.4: 1; c 64.93: 2
    found = _run(impl, board, tmp_path, "{exact_decimals: 1, tiers: [0.005]}")
    assert {r: found["census"][(r, "score")]["decimals"] for r in ROWS} == {
        "a": "2",
        "b": "1",
        "c": "2",
        "d": "1",
    }
    assert found["census"][("a", "id")]["decimals"] == ""  # a structural cell: not judged
    found = _run(impl, board, tmp_path, "{exact_decimals: 2, tiers: [0.005]}")
    assert {r: found["census"][(r, "score")]["decimals"] for r in ROWS} == dict.fromkeys(ROWS, "2")
