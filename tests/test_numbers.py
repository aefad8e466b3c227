"""audit/text/numbers.py and audit/text/labels.py: each expectation worked by hand (the
arithmetic in the comment beside it), never by the formatter itself."""

from __future__ import annotations

import pytest

from audit.cells.record import Tolerance
from audit.text import labels, numbers


@pytest.mark.parametrize(
    ("value", "places", "shown"),
    [
        # the double nearest 0.0992150448..., as the trials census wrote it in full: 4 places
        ("0.0992150448201828127903212362070917151868343353271484375", 4, "0.0992"),
        ("1.142857", 4, "1.1429"),  # 1.1428 then 57: up, 1.1429
        ("0.125", 2, "0.12"),  # half-even: 12.5 hundredths -> 12 (even)
        ("0.135", 2, "0.14"),  # half-even: 13.5 hundredths -> 14 (even)
        ("-0.0001", 3, "0.000"),  # no "-0.000"
        ("", 3, "-"),
        ("nan", 3, "-"),
        ("m4-base", 0, "m4-base"),  # an exact-text column's value, as it is
        # 1234567.891234567 at 9 places would show 16 digits: 12 at most, 5 places
        ("1234567.891234567", 9, "1234567.89123"),
    ],
)
def test_at_places(value: str, places: int, shown: str) -> None:
    assert numbers.at_places(value, places) == shown


@pytest.mark.parametrize(
    ("p", "draws", "shown"),
    [
        ("0.034826", 200, "0.035"),  # 7/201 = 0.0348..., the null's step 1/200 = 0.005: 3 places
        ("0.004975", 200, "< 0.005"),  # 1/201, the floor: rounded up to one digit
        ("0.000999", 1000, "< 0.001"),  # 1/1001, the floor
        ("0.041958", 1000, "0.042"),  # 42/1001, step 1/1000: 3 places
        ("0.4", 9, "0.4"),  # 4/10, step 1/9 = 0.11: 1 place
        ("", 1000, "-"),  # not computable
    ],
)
def test_permutation_p(p: str, draws: int, shown: str) -> None:
    assert numbers.perm_p(p, draws) == shown


@pytest.mark.parametrize(
    ("p", "threshold", "shown"),
    [
        ("0.000000e+00", 0.001, "< 0.0001"),  # the floor: a tenth of the threshold
        ("1.024000e-77", 0.001, "< 0.0001"),
        ("1.000000e+00", 0.001, "1.0"),  # two significant digits
        ("0.0123", 0.001, "0.012"),
        ("0.0001", 0.001, "0.00010"),  # at the floor itself: shown, not "<"
    ],
)
def test_chance_p(p: str, threshold: float, shown: str) -> None:
    assert numbers.chance_p(p, threshold) == shown


def test_stat_and_count() -> None:
    assert numbers.stat("1.366600e-08", 3) == "0.0000000137"  # 1.3666e-8 to 3 digits, no exponent
    assert numbers.stat("0.96", 3) == "0.960"
    assert numbers.stat("3.26", 3) == "3.26"
    assert numbers.stat("0", 3) == "0"
    assert numbers.count("1292") == "1,292"
    assert numbers.of(8, 30) == "8 of 30"  # a count beside the whole it is a part of
    assert numbers.of(996763356288, 1016255020032) == "996,763,356,288 of 1,016,255,020,032"
    assert numbers.shortest("0.050000") == "0.05"  # compare.json's six places, unpadded
    assert numbers.shortest("0.800000") == "0.8"
    assert numbers.shortest(None) == "-"


def test_places_for_a_tolerance() -> None:
    cost = Tolerance("cost", 4, (0.005, 0.05))
    score = Tolerance("score", 1, (0.05, 0.5))
    printed = Tolerance("printed", "published", (0.001, 0.01))
    assert numbers.places_for(cost, 0) == 4  # equal at 4 decimals
    assert numbers.places_for(cost, 1) == 4  # 0.005 needs 3, plus one: 4
    assert numbers.places_for(score, 1) == 3  # 0.05 needs 2, plus one: 3 > 1
    assert numbers.places_for(score, None) == 2  # the loosest, 0.5: 1 + 1
    assert numbers.places_for(printed, 0, "0.00685") == 5  # the published text's own
    assert numbers.places_for(printed, None, "0.0016") == 4  # 0.01: 2 + 1 = 3 < 4
    assert numbers.places_for(None, None, "70.30") == 2


def test_digits_and_is_number() -> None:
    assert numbers.digits("0.0348") == 3
    assert numbers.digits("1,234.5") == 5
    assert numbers.is_number("< 0.001") and numbers.is_number("1,292")
    assert not numbers.is_number("demo/m4") and not numbers.is_number("1e-05")


def test_labels() -> None:
    assert labels.header("cells_predicted") == "Cells predicted"
    assert labels.header("null_p") == "p (permutation null)"
    assert labels.header("some_new_key") == "Some new key"  # a key the table lacks, in words
    assert labels.rule("attempted/se_runs_sample/half_even") == (
        "attempted · SE runs (sample) · half-even"
    )
    assert labels.label("infrastructure_error") == "infrastructure error"  # a trial's class
    assert labels.header("unscored") == "Unscored"  # the class in words, capitalised as a header
    assert labels.header("a_values") == "A trials counted"  # compare-runs' pairs.csv
    # the glossary names real renamings only, not a key merely spaced and capitalised
    assert labels.glossary(["column", "no_data", "null_p", "a_values", "null_p"]) == [
        ("null_p", "p (permutation null)"),
        ("a_values", "A trials counted"),
    ]
    assert labels.rule("A") == "A"  # a prereg's own policy name, as it is
