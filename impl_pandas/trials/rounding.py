"""Rounding policies of a measured column (trials contract section 8.1) with Python's
decimal module: half_even, half_up (ties away from zero) and down (toward zero) are
decimal's ROUND_HALF_EVEN, ROUND_HALF_UP and ROUND_DOWN, applied by `quantize` to the
exact value. Every value judged is a finite decimal (a double, a published decimal text,
their sums), so the conversion to Decimal traps Inexact and never rounds."""

from __future__ import annotations

from decimal import (
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    Decimal,
    Inexact,
    localcontext,
)
from fractions import Fraction

MODES = {"half_even": ROUND_HALF_EVEN, "half_up": ROUND_HALF_UP, "down": ROUND_DOWN}
_PREC = 5000  # digits: more than any double's exact expansion (at most 767 significant)
_HALF = Decimal("0.5")


def to_decimal(x: Fraction | float) -> Decimal:
    """The exact value as a Decimal (a double directly; a rational by exact division)."""
    if isinstance(x, float):
        return Decimal(x)
    with localcontext() as ctx:
        ctx.prec = _PREC
        ctx.traps[Inexact] = True
        return Decimal(x.numerator) / Decimal(x.denominator)


def rounded(x: Fraction | float, decimals: int, rule: str) -> Decimal:
    """x rounded to `decimals` places under the named rule."""
    with localcontext() as ctx:
        ctx.prec = _PREC
        return to_decimal(x).quantize(Decimal(1).scaleb(-decimals), rounding=MODES[rule])


def preimage(c: Decimal, decimals: int, rule: str) -> tuple[Fraction, Fraction]:
    """The closure [A, B] of the values the rule sends to c (a value on the grid)."""
    unit = Fraction(1, 10**decimals)
    centre = Fraction(c)
    if rule != "down":
        return centre - unit / 2, centre + unit / 2
    if centre > 0:
        return centre, centre + unit
    if centre < 0:
        return centre - unit, centre
    return -unit, unit


def on_boundary(x: Decimal, decimals: int, rule: str) -> bool:
    """True when x is where the rule's result changes: a tie (half rules) or a grid point
    (down)."""
    with localcontext() as ctx:
        ctx.prec = _PREC
        scaled = x.scaleb(decimals)
        part = scaled - scaled.to_integral_value(rounding=ROUND_FLOOR)
    return part == (0 if rule == "down" else _HALF)


def exact_text(x: float) -> str:
    """The double's exact binary value in positional decimal (no exponent; -0 as 0)."""
    text = format(Decimal(x), "f")
    return "0" if text == "-0" else text
