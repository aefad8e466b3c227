"""What the two kinds of prereg check alike after the schema: typed access that fails as
bad_prereg, tolerance tiers, the classification of leaderboard columns."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

from ..errors import BAD_PREREG, InputError

NO_POLICY = "-"  # the cells' policy field of a column recomputed under no policy


@dataclass(frozen=True)
class Tolerance:
    """Tier rules: the decimals of tier 0 (None in trials v1: the published text's own)
    and the tier bounds as exact decimals."""

    name: str
    exact_decimals: int | None
    tiers: tuple[Fraction, ...]
    # cells v1 `tier_unit: last_digit`: each bound counts units of the cell's last judged digit
    last_digit: bool = False


def dotted(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


class Checker:
    """Typed access to the parsed document; every failure is bad_prereg."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, detail: str) -> InputError:
        return InputError(BAD_PREREG, self.path, detail)

    def mapping(self, value: Any, where: str) -> dict[Any, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{where} must be a mapping")
        return value

    def get(self, parent: dict[Any, Any], key: str, where: str) -> Any:
        if key not in parent:
            raise self.fail(f"key '{dotted(where, key)}' is missing")
        return parent[key]

    def block(self, value: Any, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
        """A mapping with exactly these keys (missing first, then unknown)."""
        spec = self.mapping(value, where)
        for key in keys:
            self.get(spec, key, where)
        for key in spec:
            if key not in keys:
                raise self.fail(f"unknown key '{dotted(where, str(key))}'")
        return spec

    def string(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f"{where} must be a string")
        return value

    def choice(self, value: Any, where: str, allowed: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise self.fail(f"{where} must be one of {', '.join(allowed)}")
        return value

    def integer(
        self, value: Any, where: str, low: int | None = None, high: int | None = None
    ) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{where} must be an integer")
        if (low is not None and value < low) or (high is not None and value > high):
            bound = f">= {low}" if high is None else f"in {low}..{high}"
            raise self.fail(f"{where} must be {bound}")
        return value

    def strings(self, value: Any, where: str, nonempty: bool) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{where} must be a list of strings")
        if nonempty and not value:
            raise self.fail(f"{where} must not be empty")
        if len(set(value)) != len(value):
            raise self.fail(f"{where} lists a name twice")
        return value

    def column(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(f"{where} must be a non-empty string")
        return value

    def columns(self, value: Any, where: str, nonempty: bool) -> list[str]:
        names = self.strings(value, where, nonempty)
        if any(not v for v in names):
            raise self.fail(f"{where} must not hold an empty name")
        return names

    def file(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value or "/" in value:
            raise self.fail(f"{where} must be a file name inside the bundle folder (no '/')")
        return value

    def name_keys(self, value: Any, where: str) -> dict[str, Any]:
        """A mapping whose keys are names (strings)."""
        spec = self.mapping(value, where)
        if not all(isinstance(key, str) for key in spec):
            raise self.fail(f"{where} keys must be strings")
        return spec


def tiers(chk: Checker, raw: Any, where: str) -> tuple[Fraction, ...]:
    """`<where>.tiers`: positive, strictly increasing numbers, each the exact decimal its
    repr prints."""
    if not isinstance(raw, list):
        raise chk.fail(f"{where}.tiers must be a list of numbers")
    out: list[Fraction] = []
    for item in raw:
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise chk.fail(f"{where}.tiers must be a list of numbers")
        if isinstance(item, float) and not math.isfinite(item):
            raise chk.fail(f"{where}.tiers must be finite")
        out.append(Fraction(repr(item)) if isinstance(item, float) else Fraction(item))
    if any(t <= 0 for t in out):
        raise chk.fail(f"{where}.tiers must be positive")
    if any(b <= a for a, b in pairwise(out)):
        raise chk.fail(f"{where}.tiers must strictly increase")
    return tuple(out)


def classified_once(chk: Checker, *groups: Any) -> None:
    """bad_prereg when a leaderboard column is in two classes (or twice in one)."""
    seen: set[str] = set()
    for name in (n for group in groups for n in group):
        if name in seen:
            raise chk.fail(f"column '{name}' is classified more than once")
        seen.add(name)


def column_kinds(
    structural: tuple[str, ...], no_antecedent: tuple[str, ...], measured: Any
) -> dict[str, str]:
    """Leaderboard column name to its kind."""
    kinds = {name: "structural" for name in structural}
    kinds.update({name: "no_antecedent" for name in no_antecedent})
    kinds.update({name: "measured" for name in measured})
    return kinds
