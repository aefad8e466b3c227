"""What both prereg kinds hold alike: integers, exact decimals and tolerances."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any


@dataclass(frozen=True)
class Tolerance:
    """Exact decimals for tier 0 (None, trials only: as many as the published text
    prints), then thresholds t1 < t2 < ... (exact decimals)."""

    name: str
    exact_decimals: int | None
    tiers: tuple[Fraction, ...]
    # cells v1 `tier_unit: last_digit`: a bound counts units of the cell's last judged digit
    last_digit: bool = False


def is_int(x: Any) -> bool:
    """An integer written as one (a bool is not)."""
    return isinstance(x, int) and not isinstance(x, bool)


def exact_decimal(x: Any) -> Fraction | None:
    """A YAML number as the decimal its repr prints; None if not a finite number."""
    if is_int(x):
        return Fraction(x)
    if isinstance(x, float) and math.isfinite(x):
        return Fraction(repr(x))
    return None


def tiers(raw: Any, where: str, bad: Callable[[str], Exception]) -> tuple[Fraction, ...]:
    """A tolerance's thresholds: a list of finite positive numbers, strictly increasing."""
    if not isinstance(raw, list):
        raise bad(f"key {where}tiers is not a list")
    found: list[Fraction] = []
    for t in raw:
        q = exact_decimal(t)
        if q is None:
            raise bad(f"key {where}tiers holds a value that is not a finite number")
        if q <= 0:
            raise bad(f"key {where}tiers holds a value that is not positive")
        found.append(q)
    if any(b <= a for a, b in pairwise(found)):
        raise bad(f"key {where}tiers does not strictly increase")
    return tuple(found)
