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


def printed_places(published: Fraction) -> int:
    """The decimals an exact decimal prints: the larger power of 2 or 5 in its denominator
    (a decimal's denominator holds no other prime)."""
    den = published.denominator
    twos = (den & -den).bit_length() - 1
    fives = 0
    while den % 5 == 0:
        den //= 5
        fives += 1
    return max(twos, fives)


def cell_decimals(published: Fraction, tol: Tolerance) -> int:
    """The decimals a published cell is judged at: those it prints, never fewer than a
    fixed `exact_decimals` (None: `published`, the cell's own)."""
    own = printed_places(published)
    return own if tol.exact_decimals is None else max(own, tol.exact_decimals)


def cell_bounds(decimals: int, tol: Tolerance) -> tuple[Fraction, ...]:
    """The tier bounds of a cell judged at these decimals, in published units."""
    if tol.last_digit:
        return tuple(t / 10**decimals for t in tol.tiers)
    return tol.tiers


def numeric_tier(
    published: Fraction | None,
    recomputed: float | None,
    tol: Tolerance,
) -> tuple[str, Fraction | None]:
    """(tier, exact |P - R|) for a number; published None means null, NaN or infinite.

    Tier 0 when R, rounded half to even at the cell's decimals, is P (which prints
    no more decimals than that)."""
    if recomputed is None:
        return NO_DATA, None
    if published is None:
        return DIVERGENT, None
    r = Fraction(recomputed)
    diff = abs(published - r)
    d = cell_decimals(published, tol)
    if Fraction(round_half_even(r, d), 10**d) == published:
        return "0", diff
    return threshold_tier(diff, cell_bounds(d, tol)), diff


def threshold_tier(diff: Fraction, bounds: tuple[Fraction, ...]) -> str:
    """Past tier 0: the first k with diff <= t_k, else divergent."""
    for k, t in enumerate(bounds, start=1):
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
