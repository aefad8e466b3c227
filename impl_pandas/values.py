"""Writing published and recomputed values as the contract spells them."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pandas as pd

from .floats import format_float

BOOLEAN = "boolean"
INTEGER = "integer"
FLOATING = "floating"
STRING = "string"
OTHER = "other"
NULL_KIND = "null"  # the parquet null type (logical UNKNOWN): every value null
NUMERIC_KINDS = (INTEGER, FLOATING)


def is_null(value: Any) -> bool:
    """True for a parquet null as read (None or a pandas missing marker)."""
    return value is None or value is pd.NA or value is pd.NaT


def exact_total(values: list[float]) -> float | Fraction:
    """math.fsum of the values; the exact sum when it rounds beyond the largest double.

    fsum raises OverflowError as soon as a partial sum overflows, even when the
    sum itself is a double: then the exact sum decides (contract, Recipes)."""
    try:
        return math.fsum(values)
    except OverflowError:
        exact = sum(map(Fraction, values), Fraction(0))
        try:
            return float(exact)  # int / int: correctly rounded
        except OverflowError:
            return exact


def divide(total: float | Fraction, n: int) -> float:
    """total / n as one IEEE division; an out-of-range exact sum: the exact mean, rounded once."""
    return total / n if isinstance(total, float) else float(total / n)


def format_fraction6(x: Fraction) -> str:
    """An exact non-negative rational rounded half to even to six decimals."""
    scaled = round(x * 1_000_000)
    sign = "-" if scaled < 0 else ""
    scaled = abs(scaled)
    return f"{sign}{scaled // 1_000_000}.{scaled % 1_000_000:06d}"


def format_value(value: Any, kind: str) -> str:
    """A published value of the given schema kind as a CSV field."""
    if is_null(value) or kind == NULL_KIND:
        return ""
    if kind == BOOLEAN:
        return "true" if bool(value) else "false"
    if kind == INTEGER:
        return str(int(value))
    if kind == FLOATING:
        return format_float(float(value))
    if kind == STRING:
        return str(value)
    raise ValueError(f"no written form for kind {kind}")  # refused before: unsupported_type
