"""Tiers: exact comparison of a published value with a recomputed one."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .prereg.common import Tolerance
from .values import INTEGER, format_fraction6, is_null

NO_DATA = "no_data"
DIVERGENT = "divergent"

# A published number: None (null), "nan", "inf" (either sign) or its exact decimal.
PublishedNumber = Fraction | str | None
# An abs_diff: None (not defined) or the exact difference.
AbsDiff = Fraction | None


@dataclass(frozen=True)
class Exact:
    """A finite number; a published one also with the decimals its cell is judged at
    and the widest integer tier's bound in published units (None: no tiers)."""

    value: Fraction
    decimals: int = 0
    bound: Fraction | None = None

    def unit(self) -> Fraction:
        """One unit of the cell's last judged digit, 10**-decimals."""
        return Fraction(1, 10**self.decimals)


def published_number(value: Any, kind: str) -> PublishedNumber:
    """The published value as an exact decimal (float: the decimal its repr prints)."""
    if is_null(value):
        return None
    if kind == INTEGER:
        return Fraction(int(value))
    x = float(value)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf"
    return Fraction(repr(x))


def printed_decimals(value: Fraction) -> int:
    """The decimals an exact decimal prints: the least d with value * 10**d whole."""
    d = 0
    while (value * 10**d).denominator != 1:
        d += 1
    return d


def bounds(pub: Exact, tol: Tolerance) -> tuple[Fraction, ...]:
    """The tier bounds of one published cell in published units (contract, Tiers)."""
    if not tol.last_digit:
        return tol.tiers
    unit = pub.unit()
    return tuple(t * unit for t in tol.tiers)


def recomputed_exact(value: float | None, tol: Tolerance) -> Exact | None:
    """The exact binary value of a recomputed double, or None (no data)."""
    return None if value is None else Exact(Fraction(value))


def published_exact(pub: PublishedNumber, tol: Tolerance) -> Exact | str | None:
    """The published number with the decimals its cell is judged at: its own printed
    decimals, never fewer than a fixed exact_decimals; None, "nan", "inf" pass through."""
    if not isinstance(pub, Fraction):
        return pub
    own = printed_decimals(pub)
    decimals = own if tol.exact_decimals is None else max(own, tol.exact_decimals)
    widest = bounds(Exact(pub, decimals), tol)
    return Exact(pub, decimals, widest[-1] if widest else None)


def compare(pub: Exact | str | None, rec: Exact | None, tol: Tolerance) -> tuple[str, AbsDiff]:
    """(tier, abs_diff) of a numeric cell under one policy."""
    if rec is None:
        return NO_DATA, None
    if pub is None or pub == "nan":
        return DIVERGENT, None
    if pub == "inf":
        return DIVERGENT, None
    assert isinstance(pub, Exact)
    diff = abs(pub.value - rec.value)
    if round(rec.value, pub.decimals) == pub.value:  # the cell prints no more than its decimals
        return "0", diff
    for k, bound in enumerate(bounds(pub, tol), start=1):
        if diff <= bound:
            return str(k), diff
    return DIVERGENT, diff


def compare_strings(pub: str | None, rec: str | None) -> str:
    """Tier of a single_value cell: 0 when the published string equals the recomputed one."""
    if rec is None:
        return NO_DATA
    return "0" if pub is not None and pub == rec else DIVERGENT


def is_integer_tier(tier: str) -> bool:
    """True for tiers 0, 1, 2, ..."""
    return tier.isdigit()


def format_abs_diff(diff: AbsDiff) -> str:
    """Six decimals, half to even, of the exact difference; empty when undefined."""
    if diff is None:
        return ""
    return format_fraction6(diff)
