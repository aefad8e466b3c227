"""Rounding to a decimal grid under a named rule (trials contract section 8.1), on exact
rationals with integer floor division: half_even, half_up (a tie goes away from zero),
down (toward zero). Also where a rule changes its result, and a double's exact digits."""

from __future__ import annotations

from fractions import Fraction

_HALF = Fraction(1, 2)


def _split(q: Fraction, decimals: int) -> tuple[int, Fraction, bool]:
    """(floor of q * 10**d, the remainder in [0, 1), whether q * 10**d is negative)."""
    x = q * 10**decimals
    whole = x.numerator // x.denominator
    return whole, x - whole, x < 0


def to_grid(q: Fraction, decimals: int, rule: str) -> int:
    """q rounded to `decimals` places under `rule`, as an integer count of 10**-d."""
    whole, rest, negative = _split(q, decimals)
    if rule == "down":
        return whole + 1 if negative and rest else whole
    if rest != _HALF:
        return whole + 1 if rest > _HALF else whole
    if rule == "half_even":
        return whole if whole % 2 == 0 else whole + 1
    return whole if negative else whole + 1  # half_up: away from zero


def cell_closure(n: int, decimals: int, rule: str) -> tuple[Fraction, Fraction]:
    """The closed hull [lo, hi] of every x that `rule` sends to n * 10**-d."""
    unit = Fraction(1, 10**decimals)
    if rule != "down":
        return (n - _HALF) * unit, (n + _HALF) * unit
    if n > 0:
        return n * unit, (n + 1) * unit
    if n < 0:
        return (n - 1) * unit, n * unit
    return -unit, unit


def is_switch_point(q: Fraction, decimals: int, rule: str) -> bool:
    """q sits where `rule` changes its result: a tie for the half rules, a multiple of
    10**-d for down."""
    rest = _split(q, decimals)[1]
    return rest == 0 if rule == "down" else rest == _HALF


def binary_digits(x: float) -> str:
    """Every digit of the double's exact value, positional (n / 2**k = n * 5**k / 10**k)."""
    q = Fraction(x)
    k = q.denominator.bit_length() - 1
    digits = str(abs(q.numerator) * 5**k).rjust(k + 1, "0")
    head, tail = (digits[:-k], digits[-k:].rstrip("0")) if k else (digits, "")
    sign = "-" if q < 0 else ""
    return f"{sign}{head}.{tail}" if tail else f"{sign}{head}"
