"""Writing numbers as the contract prints them (pure Python, no Arrow)."""

from __future__ import annotations

import math
from fractions import Fraction

SIX = 10**6


def format_float(x: float) -> str:
    """Six decimals of the exact binary value, half to even; no negative zero."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    s = f"{x:.6f}"
    if s == "-0.000000":
        return "0.000000"
    return s


def format_fraction(q: Fraction) -> str:
    """An exact rational rounded half to even to six decimals."""
    n = round(q * SIX)  # Fraction.__round__ rounds half to even
    sign = "-" if n < 0 else ""
    n = abs(n)
    return f"{sign}{n // SIX}.{n % SIX:06d}"
