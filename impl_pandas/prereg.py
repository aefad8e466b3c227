"""Loading and validating the preregistration (YAML)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Any

from .errors import BAD_PREREG, InputError
from .yaml_reader import read_prereg

RATE = "rate"
MEAN = "mean"
MEAN_OF_COLUMNS = "mean_of_columns"
SINGLE_VALUE = "single_value"
RECIPES = (RATE, MEAN, MEAN_OF_COLUMNS, SINGLE_VALUE)
NUMERIC_RECIPES = (RATE, MEAN, MEAN_OF_COLUMNS)
NULL_MODES = {RATE: ("failure", "exclude"), MEAN: ("exclude", "zero")}
NO_POLICY = "-"


@dataclass(frozen=True)
class Tolerance:
    """Tier rules: exact_decimals and the tier bounds as exact decimals."""

    name: str
    exact_decimals: int
    tiers: tuple[Fraction, ...]


@dataclass(frozen=True)
class Measured:
    """One measured column and its recipe."""

    name: str
    recipe: str
    source: str | None
    group: str | None
    scale: int | None
    policies: tuple[str, ...]
    nulls: dict[str, str]
    tolerance: Tolerance | None
    columns: tuple[str, ...]
    # per policy of a mean column: the instance column whose null rows leave the
    # population before the mean (policy key population.not_null), if it declares one
    population: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Chance:
    """Agreement beyond chance: the relative epsilon of "exact" and the p-value threshold."""

    epsilon: Fraction
    threshold: Fraction


@dataclass(frozen=True)
class Prereg:
    """The validated preregistration."""

    leaderboard: str
    instances: str
    row_id: str
    instance_key: tuple[str, ...]
    group_by: str
    structural: tuple[str, ...]
    no_antecedent: tuple[str, ...]
    measured: dict[str, Measured]
    seed: int
    null_draws: int
    chance: Chance

    def kind_of(self) -> dict[str, str]:
        """Leaderboard column name to its kind."""
        kinds = {name: "structural" for name in self.structural}
        kinds.update({name: "no_antecedent" for name in self.no_antecedent})
        kinds.update({name: "measured" for name in self.measured})
        return kinds


def load_document(path: str) -> Any:
    """Read the YAML file strictly (yaml_reader.py: missing_file ... bad_prereg)."""
    return read_prereg(path)


class _Checker:
    """Typed access to the parsed document; failures are bad_prereg."""

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
            raise self.fail(
                f"key '{where}.{key}' is missing" if where else f"key '{key}' is missing"
            )
        return parent[key]

    def string(self, parent: dict[Any, Any], key: str, where: str) -> str:
        value = self.get(parent, key, where)
        if not isinstance(value, str):
            raise self.fail(f"{_dotted(where, key)} must be a string")
        return value

    def integer(self, parent: dict[Any, Any], key: str, where: str) -> int:
        value = self.get(parent, key, where)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{_dotted(where, key)} must be an integer")
        return value

    def strings(self, parent: dict[Any, Any], key: str, where: str, nonempty: bool) -> list[str]:
        value = self.get(parent, key, where)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(f"{_dotted(where, key)} must be a list of strings")
        if nonempty and not value:
            raise self.fail(f"{_dotted(where, key)} must not be empty")
        return value


def _dotted(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def bundle_file(doc: Any, key: str) -> str | None:
    """`bundle.<key>` if it is a string, else None (parse() then reports bad_prereg)."""
    bundle = doc.get("bundle") if isinstance(doc, dict) else None
    name = bundle.get(key) if isinstance(bundle, dict) else None
    return name if isinstance(name, str) else None


def _tolerance(chk: _Checker, tolerances: dict[Any, Any], name: str, where: str) -> Tolerance:
    if name not in tolerances:
        raise chk.fail(f"{where}.tolerance: unknown tolerance '{name}'")
    spec = chk.mapping(tolerances[name], f"tolerances.{name}")
    decimals = chk.integer(spec, "exact_decimals", f"tolerances.{name}")
    if decimals < 0:
        raise chk.fail(f"tolerances.{name}.exact_decimals must not be negative")
    raw = chk.get(spec, "tiers", f"tolerances.{name}")
    if not isinstance(raw, list):
        raise chk.fail(f"tolerances.{name}.tiers must be a list of numbers")
    tiers: list[Fraction] = []
    for item in raw:
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise chk.fail(f"tolerances.{name}.tiers must be a list of numbers")
        if isinstance(item, float):
            if not math.isfinite(item):
                raise chk.fail(f"tolerances.{name}.tiers must be finite")
            tiers.append(Fraction(repr(item)))
        else:
            tiers.append(Fraction(item))
    if any(t <= 0 for t in tiers):
        raise chk.fail(f"tolerances.{name}.tiers must be positive")
    if any(b <= a for a, b in pairwise(tiers)):
        raise chk.fail(f"tolerances.{name}.tiers must strictly increase")
    return Tolerance(name=name, exact_decimals=decimals, tiers=tuple(tiers))


def _measured(
    chk: _Checker,
    name: str,
    spec_raw: Any,
    policies: dict[Any, Any],
    tolerances: dict[Any, Any],
) -> Measured:
    where = f"columns.measured.{name}"
    spec = chk.mapping(spec_raw, where)
    recipe = chk.string(spec, "recipe", where)
    if recipe not in RECIPES:
        raise chk.fail(f"{where}.recipe: unknown recipe '{recipe}'")
    group: str | None = None
    if "group" in spec:
        group = chk.string(spec, "group", where)
    if recipe == SINGLE_VALUE:
        source = chk.string(spec, "source", where)
        return Measured(name, recipe, source, group, None, (NO_POLICY,), {}, None, ())
    listed = chk.strings(spec, "policies", where, nonempty=True)
    if len(set(listed)) != len(listed):
        raise chk.fail(f"{where}.policies lists a policy twice")
    nulls: dict[str, str] = {}
    population: dict[str, str] = {}
    for policy in listed:
        if policy not in policies:
            raise chk.fail(f"{where}.policies: unknown policy '{policy}'")
        pspec = chk.mapping(policies[policy], f"policies.{policy}")
        precipe = chk.string(pspec, "recipe", f"policies.{policy}")
        mode = chk.string(pspec, "nulls", f"policies.{policy}")
        if precipe not in NULL_MODES:
            raise chk.fail(f"policies.{policy}.recipe: unknown recipe '{precipe}'")
        if mode not in NULL_MODES[precipe]:
            raise chk.fail(f"policies.{policy}.nulls: unknown mode '{mode}' for recipe '{precipe}'")
        if recipe != MEAN_OF_COLUMNS and precipe != recipe:
            raise chk.fail(f"{where}.policies: policy '{policy}' is for recipe '{precipe}'")
        nulls[policy] = mode
        if "population" in pspec:
            population[policy] = _population(chk, pspec["population"], policy, precipe)
    tolerance = _tolerance(chk, tolerances, chk.string(spec, "tolerance", where), where)
    if recipe == MEAN_OF_COLUMNS:
        columns = chk.strings(spec, "columns", where, nonempty=True)
        return Measured(
            name, recipe, None, group, None, tuple(listed), nulls, tolerance, tuple(columns)
        )
    source = chk.string(spec, "source", where)
    scale = chk.integer(spec, "scale", where) if recipe == RATE else None
    return Measured(
        name, recipe, source, group, scale, tuple(listed), nulls, tolerance, (), population
    )


def _population(chk: _Checker, raw: Any, policy: str, recipe: str) -> str:
    """population: {not_null: <instance column>}, for a mean policy only."""
    where = f"policies.{policy}.population"
    if recipe != MEAN:
        raise chk.fail(f"{where}: only a mean policy restricts its population")
    spec = chk.mapping(raw, where)
    if list(spec) != ["not_null"]:
        raise chk.fail(f"{where} must hold exactly the key not_null")
    column = chk.string(spec, "not_null", where)
    if not column:
        raise chk.fail(f"{where}.not_null must name a column")
    return column


def _check_mean_of_columns(chk: _Checker, measured: dict[str, Measured]) -> None:
    for col in measured.values():
        if col.recipe != MEAN_OF_COLUMNS:
            continue
        for listed in col.columns:
            other = measured.get(listed)
            if other is None or other.recipe == SINGLE_VALUE:
                raise chk.fail(
                    f"columns.measured.{col.name}.columns: '{listed}' is not measured "
                    "with the same policy"
                )
            for policy in col.policies:
                if policy not in other.policies:
                    raise chk.fail(
                        f"columns.measured.{col.name}.columns: '{listed}' is not "
                        f"measured with policy '{policy}'"
                    )
    state: dict[str, int] = {}

    def visit(name: str) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise chk.fail(f"columns.measured.{name}: mean_of_columns refers to itself")
        state[name] = 1
        for listed in measured[name].columns:
            visit(listed)
        state[name] = 2

    for name in measured:
        visit(name)


def _measured_names(chk: _Checker, columns: dict[Any, Any]) -> dict[str, Any]:
    """`columns.measured`: a mapping from column names (strings) to their specs."""
    measured_raw = chk.mapping(chk.get(columns, "measured", "columns"), "columns.measured")
    for key in measured_raw:
        if not isinstance(key, str):
            raise chk.fail("columns.measured keys must be strings")
    return measured_raw


def _null_keys(chk: _Checker, top: dict[Any, Any]) -> tuple[int, int]:
    """(seed, null_draws)."""
    seed = chk.integer(top, "seed", "")
    null_draws = chk.integer(top, "null_draws", "")
    if null_draws < 1:
        raise chk.fail("null_draws must be at least 1")
    return seed, null_draws


def _positive_number(chk: _Checker, parent: dict[Any, Any], key: str, where: str) -> Fraction:
    """A finite number > 0 as the exact decimal its repr prints."""
    value = chk.get(parent, key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise chk.fail(f"{_dotted(where, key)} must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise chk.fail(f"{_dotted(where, key)} must be finite")
    exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if exact <= 0:
        raise chk.fail(f"{_dotted(where, key)} must be positive")
    return exact


def _chance(chk: _Checker, top: dict[Any, Any]) -> Chance:
    """`chance`: exactly epsilon (> 0) and threshold (in (0, 1))."""
    spec = chk.mapping(chk.get(top, "chance", ""), "chance")
    unknown = sorted(str(k) for k in spec if k not in ("epsilon", "threshold"))
    if unknown:
        raise chk.fail(f"chance: unknown key '{unknown[0]}'")
    epsilon = _positive_number(chk, spec, "epsilon", "chance")
    threshold = _positive_number(chk, spec, "threshold", "chance")
    if threshold >= 1:
        raise chk.fail("chance.threshold must be below 1")
    return Chance(epsilon=epsilon, threshold=threshold)


@dataclass(frozen=True)
class NullKeys:
    """What the shard commands need: the measured column names, seed, null_draws."""

    measured: tuple[str, ...]
    seed: int
    null_draws: int


def parse_null_keys(doc: Any, path: str) -> NullKeys:
    """Validate only the keys the null's shard commands use, as parse() does (bad_prereg)."""
    chk = _Checker(path)
    top = chk.mapping(doc, "the document")
    columns = chk.mapping(chk.get(top, "columns", ""), "columns")
    measured = tuple(_measured_names(chk, columns))
    seed, null_draws = _null_keys(chk, top)
    return NullKeys(measured=measured, seed=seed, null_draws=null_draws)


def parse(doc: Any, path: str) -> Prereg:
    """Validate every key the recompute needs (bad_prereg on failure)."""
    chk = _Checker(path)
    top = chk.mapping(doc, "the document")
    bundle = chk.mapping(chk.get(top, "bundle", ""), "bundle")
    leaderboard = chk.string(bundle, "leaderboard", "bundle")
    instances = chk.string(bundle, "instances", "bundle")
    row_id = chk.string(bundle, "row_id", "bundle")
    instance_key = chk.strings(bundle, "instance_key", "bundle", nonempty=True)
    group_by = chk.string(bundle, "group_by", "bundle")
    for key, only in (("rounding", "half_even"), ("nan_in_sources", "as_null")):
        if chk.string(top, key, "") != only:
            raise chk.fail(f"{key} must be '{only}', the only rule this contract implements")

    columns = chk.mapping(chk.get(top, "columns", ""), "columns")
    structural = chk.strings(columns, "structural", "columns", nonempty=False)
    no_antecedent = chk.strings(columns, "no_antecedent", "columns", nonempty=False)
    measured_raw = _measured_names(chk, columns)
    seen: set[str] = set()
    for name in [*structural, *no_antecedent, *measured_raw]:
        if name in seen:
            raise chk.fail(f"column '{name}' is classified more than once")
        seen.add(name)

    policies = chk.mapping(chk.get(top, "policies", ""), "policies")
    tolerances = chk.mapping(chk.get(top, "tolerances", ""), "tolerances")
    measured: dict[str, Measured] = {}
    for name, spec in measured_raw.items():
        measured[name] = _measured(chk, name, spec, policies, tolerances)
    _check_mean_of_columns(chk, measured)

    seed, null_draws = _null_keys(chk, top)
    chance = _chance(chk, top)
    return Prereg(
        leaderboard=leaderboard,
        instances=instances,
        row_id=row_id,
        instance_key=tuple(instance_key),
        group_by=group_by,
        structural=tuple(structural),
        no_antecedent=tuple(no_antecedent),
        measured=measured,
        seed=seed,
        null_draws=null_draws,
        chance=chance,
    )
