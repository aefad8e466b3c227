"""The controls' exact sum of a column of doubles (controls/exact.py, series_sum), held
against Python's own exact rationals: the sum of Fraction(v), each double's exact value.
The 128-bit path serves values within 2**100 of each other's scale; wider ones,
infinities and huge counts go one by one, and must give the same Fraction."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import polars as pl
import pytest

from controls import exact


def by_fractions(values: list[float]) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def spread(seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    cases = [
        [round(rng.expovariate(1) * 3, rng.randrange(0, 9)) for _ in range(5000)],  # costs
        [rng.uniform(-1, 1) * 2.0 ** rng.randrange(-20, 20) for _ in range(3000)],
        [0.0, -0.0, 0.1, 0.2, 0.30000000000000004, -0.1],
        [2.0**-1000, 2.0**-1000 * 3, 2.0**-1001],  # tiny, close together
        [5e-324, 1.0],  # a subnormal and one: too far apart, one by one
        [1e300, -1e300, 1e-300],
        [float(2**52 + 1), 0.5],
        [0.0, -0.0],
    ]
    return cases


@pytest.mark.parametrize("case", range(8))
def test_series_sum_is_the_exact_sum(case: int) -> None:
    values = spread(20261203)[case]
    assert exact.series_sum(pl.Series(values, dtype=pl.Float64)) == by_fractions(values)


def test_close_values_take_the_integer_path(monkeypatch) -> None:
    """Costs a few binades apart never go value by value (which was 60% of a
    prediction's time at 10M rows)."""
    values = spread(1)[0]

    def refuse(_values: list) -> Fraction:
        raise AssertionError("went value by value")

    monkeypatch.setattr(exact, "exact_sum", refuse)
    assert exact.series_sum(pl.Series(values, dtype=pl.Float64)) == by_fractions(values)


def test_float32_values_sum_exactly() -> None:
    values = [0.1, 2.5, -3.75, 1e-3]
    column = pl.Series(values, dtype=pl.Float32)
    assert exact.series_sum(column) == by_fractions([float(v) for v in column.to_list()])
    assert math.isclose(float(exact.series_sum(column)), sum(column.to_list()))
