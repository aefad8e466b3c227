"""Tier of a recomputed value against the published one, by exact arithmetic.

The tier names and the thresholds' rule serve the leaderboard part and the trials
part alike (trials/judge.py adds its grids and certain tiers)."""

from __future__ import annotations

from fractions import Fraction

from .prereg.fields import Tolerance

NO_DATA = "no_data"
DIVERGENT = "divergent"


def round_half_even(q: Fraction, decimals: int) -> int:
    """q * 10**decimals rounded half to even, as an integer."""
    return round(q * 10**decimals)


def numeric_tier(
    published: Fraction | None,
    recomputed: float | None,
    tol: Tolerance,
) -> tuple[str, Fraction | None]:
    """(tier, exact |P - R|) for a number; published None means null, NaN or infinite."""
    if recomputed is None:
        return NO_DATA, None
    if published is None:
        return DIVERGENT, None
    r = Fraction(recomputed)
    diff = abs(published - r)
    d = tol.exact_decimals
    assert d is not None  # a leaderboard tolerance always names its decimals
    if round_half_even(published, d) == round_half_even(r, d):
        return "0", diff
    return threshold_tier(diff, tol), diff


def threshold_tier(diff: Fraction, tol: Tolerance) -> str:
    """Past tier 0: the first k with diff <= t_k, else divergent."""
    for k, t in enumerate(tol.tiers, start=1):
        if diff <= t:
            return str(k)
    return DIVERGENT


def string_tier(published: str | None, recomputed: str | None) -> str:
    """Tier of a single_value cell: 0 if the strings are equal."""
    if recomputed is None:
        return NO_DATA
    if published is not None and published == recomputed:
        return "0"
    return DIVERGENT


def is_integer_tier(tier: str) -> bool:
    """True for 0, 1, 2, ...; False for divergent and no_data."""
    return tier.isdigit()
