"""A published value at its own printed decimals, and what rounds to it.

A value is read as a whole number of units of 10^-d, d its printed decimals
(``87.10`` is 8710 at d = 2; a float is read as the decimal of its ``repr``,
which prints no trailing zero). Under a rounding rule the true values that
print as it form one interval; its ends and whether each is included are
exact fractions, so no float ever takes part in a decision.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

# The rules a published value may have been rounded by.
ROUNDINGS = ("half_even", "half_up", "truncate")
MAX_DIGITS = 400

_NUMERAL = re.compile(r"^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$|^([+-]?)\.(\d+)$")


@dataclass(frozen=True)
class Printed:
    """A published value: ``units`` of 10^-``decimals`` (87.1 is 871 at 1)."""

    units: int
    decimals: int

    @property
    def value(self) -> Fraction:
        return Fraction(self.units, 10**self.decimals)

    def text(self) -> str:
        return fixed(self.value, self.decimals)


@dataclass(frozen=True)
class Interval:
    """The true values that print as a published one: lo..hi, each end in or out."""

    lo: Fraction
    hi: Fraction
    lo_in: bool
    hi_in: bool

    def holds(self, x: Fraction) -> bool:
        above = x > self.lo or (self.lo_in and x == self.lo)
        below = x < self.hi or (self.hi_in and x == self.hi)
        return above and below


def parse(text: str) -> Printed | None:
    """A decimal numeral as printed (``87.10``, ``-3``, ``.5``, ``1e-3``); None if it is not one."""
    t = text.strip()
    if len(t) > MAX_DIGITS:  # no published score has more digits
        return None
    m = _NUMERAL.match(t)
    if m is None:
        return None
    if m.group(6) is not None:  # ".5"
        sign, whole, frac, exp = m.group(5), "0", m.group(6), None
    else:
        sign, whole, frac, exp = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    units = int(whole + frac)
    decimals = len(frac)
    if exp is not None:
        e = int(exp)
        if abs(e) > 400:  # beyond any published score; refuse rather than build a huge number
            return None
        decimals -= e
        if decimals < 0:
            units *= 10 ** (-decimals)
            decimals = 0
    return Printed(-units if sign == "-" else units, decimals)


def from_float(x: float) -> Printed | None:
    """A stored float read as the decimal of its repr (no trailing zero); None for NaN or inf."""
    if not math.isfinite(x):
        return None
    p = parse(repr(x))
    if p is None:  # pragma: no cover - repr of a finite float is always a numeral
        return None
    units, d = p.units, p.decimals
    while d > 0 and units % 10 == 0:
        units //= 10
        d -= 1
    return Printed(units, d)


def at_decimals(p: Printed, decimals: int) -> Printed | None:
    """The value read at a declared number of decimals; None if it has more digits than that."""
    if decimals >= p.decimals:
        return Printed(p.units * 10 ** (decimals - p.decimals), decimals)
    step = 10 ** (p.decimals - decimals)
    if p.units % step:
        return None
    return Printed(p.units // step, decimals)


def interval(p: Printed, rounding: str) -> Interval:
    """The exact interval of true values that ``rounding`` prints as ``p`` at its decimals.

    half_even: ties go to the even last digit, so both ends belong to an even
    value and neither to an odd one. half_up: ties away from zero (the
    schoolbook rule). truncate: the digits after the last printed one dropped
    (toward zero), so 0 takes both sides of zero, open.
    """
    g = Fraction(1, 10**p.decimals)
    u = p.units
    half = g / 2
    if rounding == "half_even":
        even = u % 2 == 0
        return Interval(u * g - half, u * g + half, even, even)
    if rounding == "half_up":
        if u > 0:
            return Interval(u * g - half, u * g + half, True, False)
        if u < 0:
            return Interval(u * g - half, u * g + half, False, True)
        return Interval(-half, half, False, False)
    if rounding == "truncate":
        if u > 0:
            return Interval(u * g, (u + 1) * g, True, False)
        if u < 0:
            return Interval((u - 1) * g, u * g, False, True)
        return Interval(-g, g, False, False)
    raise ValueError(f"unknown rounding {rounding!r}")


def fixed(x: Fraction, decimals: int) -> str:
    """An exact fraction written at ``decimals`` decimals, rounded half to even (for display)."""
    scaled = x * 10**decimals
    n = round(scaled)  # Fraction.__round__ rounds half to even, exactly
    sign = "-" if n < 0 else ""
    digits = str(abs(n)).rjust(decimals + 1, "0")
    if decimals == 0:
        return sign + digits
    return f"{sign}{digits[:-decimals]}.{digits[-decimals:]}"
