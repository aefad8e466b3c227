"""A leaderboard prereg (cells v1, docs/contract.md): its own checks after the schema."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from . import LEADERBOARD, validate
from .common import NO_POLICY, Checker, Tolerance, classified_once, column_kinds, dotted, tiers

RATE = "rate"
MEAN = "mean"
MEAN_OF_COLUMNS = "mean_of_columns"
SINGLE_VALUE = "single_value"
PUBLISHED_DECIMALS = "published"  # exact_decimals: every cell at the decimals it prints
SUM = "sum"  # read as a mean that is not divided (Measured.total): same sources, policies
RECIPES = (RATE, MEAN, SUM, MEAN_OF_COLUMNS, SINGLE_VALUE)
NUMERIC_RECIPES = (RATE, MEAN, MEAN_OF_COLUMNS)
NULL_MODES = {RATE: ("failure", "exclude"), MEAN: ("exclude", "zero")}


@dataclass(frozen=True)
class Universe:
    """A declared universe of instance ids: `column` holds them in the instance table.

    Declared as a table (`ids: {file, column}`), `ids` is empty until the bundle's
    table is read (universe.py), `table` names it: (file name, its id column)."""

    column: str
    ids: frozenset[str]
    refuse_missing: bool
    table: tuple[str, str] | None = None


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
    # a `sum` column: the mean's rows and nulls, the sum itself (no division)
    total: bool = False
    # `denominator: {fixed: N}`: the row's group has N instances (None: the rows it lists)
    fixed: int | None = None
    # `denominator: {universe: ...}`: the instance column holding the ids, the ids (N =
    # their number, as fixed) and whether an id a row does not list is refused
    universe: Universe | None = None


@dataclass(frozen=True)
class Chance:
    """Agreement beyond chance: the relative epsilon of "exact" and the p-value threshold."""

    epsilon: Fraction
    threshold: Fraction


@dataclass(frozen=True)
class Feasible:
    """A column declared under `feasibility`: its count, scale, score range and rounding."""

    column: str
    over: int | None  # a fixed N, or None when each row's N is in over_column
    over_column: str | None
    scale: int
    lo: int
    hi: int
    decimals: int
    rounding: str
    over_instances: bool = False  # each row's N is its number of instance rows
    over_group: str | None = None  # ... of this group only


FEASIBLE_KEYS = ("over", "scale", "scores", "decimals", "rounding")
ROUNDINGS = ("half_even", "half_up", "truncate")


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
    feasibility: dict[str, Feasible] = field(default_factory=dict)

    def kind_of(self) -> dict[str, str]:
        """Leaderboard column name to its kind."""
        return column_kinds(self.structural, self.no_antecedent, self.measured)


def _string(chk: Checker, parent: dict[Any, Any], key: str, where: str) -> str:
    return chk.string(chk.get(parent, key, where), dotted(where, key))


def _integer(chk: Checker, parent: dict[Any, Any], key: str, where: str) -> int:
    return chk.integer(chk.get(parent, key, where), dotted(where, key))


def _strings(
    chk: Checker, parent: dict[Any, Any], key: str, where: str, nonempty: bool
) -> list[str]:
    return chk.strings(chk.get(parent, key, where), dotted(where, key), nonempty)


def bundle_file(doc: Any, key: str) -> str | None:
    """`bundle.<key>` if it is a string, else None (parse() then reports bad_prereg)."""
    bundle = doc.get("bundle") if isinstance(doc, dict) else None
    name = bundle.get(key) if isinstance(bundle, dict) else None
    return name if isinstance(name, str) else None


def _tolerance(chk: Checker, tolerances: dict[Any, Any], name: str, where: str) -> Tolerance:
    if name not in tolerances:
        raise chk.fail(f"{where}.tolerance: unknown tolerance '{name}'")
    spec = chk.mapping(tolerances[name], f"tolerances.{name}")
    decimals: int | None = None  # `published`: each cell at its own printed decimals
    if chk.get(spec, "exact_decimals", f"tolerances.{name}") != PUBLISHED_DECIMALS:
        decimals = _integer(chk, spec, "exact_decimals", f"tolerances.{name}")
        if decimals < 0:
            raise chk.fail(f"tolerances.{name}.exact_decimals must not be negative")
    bounds = tiers(chk, chk.get(spec, "tiers", f"tolerances.{name}"), f"tolerances.{name}")
    unit = spec.get("tier_unit", "published")
    if unit not in ("published", "last_digit"):
        raise chk.fail(f"tolerances.{name}.tier_unit must be published or last_digit")
    return Tolerance(name, decimals, bounds, last_digit=unit == "last_digit")


def _measured(
    chk: Checker,
    name: str,
    spec_raw: Any,
    policies: dict[Any, Any],
    tolerances: dict[Any, Any],
) -> Measured:
    where = f"columns.measured.{name}"
    spec = chk.mapping(spec_raw, where)
    recipe = _string(chk, spec, "recipe", where)
    if recipe not in RECIPES:
        raise chk.fail(f"{where}.recipe: unknown recipe '{recipe}'")
    group: str | None = None
    if "group" in spec:
        group = _string(chk, spec, "group", where)
    if recipe == SINGLE_VALUE:
        source = _string(chk, spec, "source", where)
        return Measured(name, recipe, source, group, None, (NO_POLICY,), {}, None, ())
    listed = _strings(chk, spec, "policies", where, nonempty=True)
    nulls: dict[str, str] = {}
    population: dict[str, str] = {}
    for policy in listed:
        if policy not in policies:
            raise chk.fail(f"{where}.policies: unknown policy '{policy}'")
        pspec = chk.mapping(policies[policy], f"policies.{policy}")
        precipe = _string(chk, pspec, "recipe", f"policies.{policy}")
        mode = _string(chk, pspec, "nulls", f"policies.{policy}")
        if precipe not in NULL_MODES:
            raise chk.fail(f"policies.{policy}.recipe: unknown recipe '{precipe}'")
        if mode not in NULL_MODES[precipe]:
            raise chk.fail(f"policies.{policy}.nulls: unknown mode '{mode}' for recipe '{precipe}'")
        if recipe != MEAN_OF_COLUMNS and precipe != (MEAN if recipe == SUM else recipe):
            raise chk.fail(f"{where}.policies: policy '{policy}' is for recipe '{precipe}'")
        nulls[policy] = mode
        if "population" in pspec:
            population[policy] = _population(chk, pspec["population"], policy, precipe)
    tolerance = _tolerance(chk, tolerances, _string(chk, spec, "tolerance", where), where)
    if recipe == MEAN_OF_COLUMNS:
        columns = _strings(chk, spec, "columns", where, nonempty=True)
        return Measured(
            name, recipe, None, group, None, tuple(listed), nulls, tolerance, tuple(columns)
        )
    source = _string(chk, spec, "source", where)
    scale = None
    if recipe == RATE or (recipe == MEAN and "scale" in spec):
        scale = _integer(chk, spec, "scale", where)
        if scale < 1:
            raise chk.fail(f"{where}.scale must be at least 1")
    fixed, universe = _denominator(chk, spec, where) if recipe in (RATE, MEAN) else (None, None)
    return Measured(
        name,
        MEAN if recipe == SUM else recipe,
        source,
        group,
        scale,
        tuple(listed),
        nulls,
        tolerance,
        (),
        population,
        total=recipe == SUM,
        fixed=fixed,
        universe=universe,
    )


def _denominator(
    chk: Checker, spec: dict[Any, Any], where: str
) -> tuple[int | None, Universe | None]:
    """`denominator`: absent or `rows` (None), {fixed: N} with N >= 1, or {universe:
    {column, ids, missing}} (N = the number of ids)."""
    raw = spec.get("denominator", "rows")
    where = f"{where}.denominator"
    if raw == "rows":
        return None, None
    if isinstance(raw, dict) and "universe" in raw:
        block = chk.block(raw, where, ("universe",))
        uni = chk.block(block["universe"], f"{where}.universe", ("column", "ids", "missing"))
        column = chk.string(uni["column"], f"{where}.universe.column")
        table: tuple[str, str] | None = None
        if isinstance(uni["ids"], dict):  # a table of the bundle: read with the bundle
            named = chk.block(uni["ids"], f"{where}.universe.ids", ("file", "column"))
            table = (
                chk.string(named["file"], f"{where}.universe.ids.file"),
                chk.string(named["column"], f"{where}.universe.ids.column"),
            )
            ids: list[str] = []
        else:
            ids = chk.strings(uni["ids"], f"{where}.universe.ids", nonempty=True)
        if len(set(ids)) != len(ids):
            raise chk.fail(f"{where}.universe.ids names an id twice")
        missing = chk.string(uni["missing"], f"{where}.universe.missing")
        if missing not in ("as_null", "refuse"):
            raise chk.fail(f"{where}.universe.missing must be as_null or refuse")
        universe = Universe(column, frozenset(ids), missing == "refuse", table)
        return (None if table else len(ids)), universe
    block = chk.block(raw, where, ("fixed",))
    return chk.integer(block["fixed"], f"{where}.fixed", 1), None


def _population(chk: Checker, raw: Any, policy: str, recipe: str) -> str:
    """population: {not_null: <instance column>}, for a mean policy only."""
    where = f"policies.{policy}.population"
    if recipe != MEAN:
        raise chk.fail(f"{where}: only a mean policy restricts its population")
    spec = chk.mapping(raw, where)
    if list(spec) != ["not_null"]:
        raise chk.fail(f"{where} must hold exactly the key not_null")
    column = _string(chk, spec, "not_null", where)
    if not column:
        raise chk.fail(f"{where}.not_null must name a column")
    return column


def _check_mean_of_columns(chk: Checker, measured: dict[str, Measured]) -> None:
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


def _measured_names(chk: Checker, columns: dict[Any, Any]) -> dict[str, Any]:
    """`columns.measured`: a mapping from column names (strings) to their specs."""
    return chk.name_keys(chk.get(columns, "measured", "columns"), "columns.measured")


def _null_keys(chk: Checker, top: dict[Any, Any]) -> tuple[int, int]:
    """(seed, null_draws)."""
    seed = _integer(chk, top, "seed", "")
    null_draws = _integer(chk, top, "null_draws", "")
    if null_draws < 1:
        raise chk.fail("null_draws must be at least 1")
    return seed, null_draws


def _positive_number(chk: Checker, parent: dict[Any, Any], key: str, where: str) -> Fraction:
    """A finite number > 0 as the exact decimal its repr prints."""
    value = chk.get(parent, key, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise chk.fail(f"{dotted(where, key)} must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise chk.fail(f"{dotted(where, key)} must be finite")
    exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    if exact <= 0:
        raise chk.fail(f"{dotted(where, key)} must be positive")
    return exact


def _chance(chk: Checker, top: dict[Any, Any]) -> Chance:
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


def _feasibility(
    chk: Checker,
    top: dict[Any, Any],
    structural: list[str],
    no_antecedent: list[str],
    measured: dict[str, Measured],
) -> dict[str, Feasible]:
    """`feasibility` (optional): the declared columns, in the prereg's order."""
    if "feasibility" not in top:
        return {}
    spec = chk.name_keys(top["feasibility"], "feasibility")
    out: dict[str, Feasible] = {}
    for name, raw in spec.items():
        where = f"feasibility.{name}"
        col = measured.get(name)
        if name not in no_antecedent and (col is None or col.recipe == SINGLE_VALUE):
            raise chk.fail(
                f"{where}: not a no_antecedent column or a numeric measured column of the prereg"
            )
        body = chk.block(raw, where, FEASIBLE_KEYS)
        over_raw = body["over"]
        over: int | None = None
        over_column: str | None = None
        over_instances, over_group = False, None
        if isinstance(over_raw, dict) and "instances" in over_raw:
            inner = chk.block(over_raw, f"{where}.over", ("instances",))["instances"]
            if not isinstance(inner, dict) or set(inner) - {"group"}:
                raise chk.fail(f"{where}.over.instances must be a mapping of at most group")
            if "group" in inner:
                over_group = _string(chk, inner, "group", f"{where}.over.instances")
                if not (top.get("bundle") or {}).get("group_by"):
                    raise chk.fail(f"{where}.over.instances.group: no bundle.group_by declared")
            over_instances = True
        elif isinstance(over_raw, dict):
            over_column = _string(
                chk, chk.block(over_raw, f"{where}.over", ("column",)), "column", f"{where}.over"
            )
            if over_column not in structural and over_column not in no_antecedent:
                raise chk.fail(
                    f"{where}.over.column: '{over_column}' is not a structural or "
                    "no_antecedent column of the prereg"
                )
        else:
            over = chk.integer(over_raw, f"{where}.over", low=1)
        scale = chk.integer(body["scale"], f"{where}.scale", low=1)
        scores = body["scores"]
        if not isinstance(scores, list) or len(scores) != 2:
            raise chk.fail(f"{where}.scores must be a list of two integers")
        lo = chk.integer(scores[0], f"{where}.scores[0]")
        hi = chk.integer(scores[1], f"{where}.scores[1]")
        if lo >= hi:
            raise chk.fail(f"{where}.scores: the least must be below the greatest")
        decimals = chk.integer(body["decimals"], f"{where}.decimals", low=0)
        rounding = chk.choice(body["rounding"], f"{where}.rounding", ROUNDINGS)
        out[name] = Feasible(
            name, over, over_column, scale, lo, hi, decimals, rounding, over_instances, over_group
        )
    return out


@dataclass(frozen=True)
class NullKeys:
    """What the shard commands need: the measured column names, seed, null_draws."""

    measured: tuple[str, ...]
    seed: int
    null_draws: int


def parse_null_keys(doc: Any, path: str) -> NullKeys:
    """The schema, then only the keys the null's shard commands use, as parse() (bad_prereg)."""
    validate(doc, path, LEADERBOARD)
    chk = Checker(path)
    top = chk.mapping(doc, "the document")
    columns = chk.mapping(chk.get(top, "columns", ""), "columns")
    measured = tuple(_measured_names(chk, columns))
    seed, null_draws = _null_keys(chk, top)
    return NullKeys(measured=measured, seed=seed, null_draws=null_draws)


def parse(doc: Any, path: str) -> Prereg:
    """The schema (prereg.schema.yaml), then every key the recompute needs (bad_prereg)."""
    validate(doc, path, LEADERBOARD)
    chk = Checker(path)
    top = chk.mapping(doc, "the document")
    bundle = chk.mapping(chk.get(top, "bundle", ""), "bundle")
    leaderboard = _string(chk, bundle, "leaderboard", "bundle")
    instances = _string(chk, bundle, "instances", "bundle")
    row_id = _string(chk, bundle, "row_id", "bundle")
    instance_key = _strings(chk, bundle, "instance_key", "bundle", nonempty=True)
    group_by = _string(chk, bundle, "group_by", "bundle")
    for key, only in (("rounding", "half_even"), ("nan_in_sources", "as_null")):
        if _string(chk, top, key, "") != only:
            raise chk.fail(f"{key} must be '{only}', the only rule this contract implements")

    columns = chk.mapping(chk.get(top, "columns", ""), "columns")
    structural = _strings(chk, columns, "structural", "columns", nonempty=False)
    no_antecedent = _strings(chk, columns, "no_antecedent", "columns", nonempty=False)
    measured_raw = _measured_names(chk, columns)
    classified_once(chk, structural, no_antecedent, measured_raw)

    policies = chk.mapping(chk.get(top, "policies", ""), "policies")
    tolerances = chk.mapping(chk.get(top, "tolerances", ""), "tolerances")
    measured: dict[str, Measured] = {}
    for name, spec in measured_raw.items():
        measured[name] = _measured(chk, name, spec, policies, tolerances)
    _check_mean_of_columns(chk, measured)

    seed, null_draws = _null_keys(chk, top)
    chance = _chance(chk, top)
    feasibility = _feasibility(chk, top, structural, no_antecedent, measured)
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
        feasibility=feasibility,
    )
