"""The leaderboard prereg (cells v1): after its schema (.document), what a schema cannot say."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..errors import InputError
from . import document
from .fields import Tolerance, is_int, tiers

RECIPES: tuple[str, ...] = ("rate", "mean", "sum", "mean_of_columns", "single_value")
# Allowed `nulls` values per policy recipe.
NULLS_BY_RECIPE: dict[str, tuple[str, ...]] = {
    "rate": ("failure", "exclude"),
    "mean": ("exclude", "zero"),
}
SINGLE_VALUE_POLICY = "-"


@dataclass(frozen=True)
class Policy:
    """A null-handling policy: which recipe it serves and what a null means."""

    name: str
    recipe: str
    nulls: str
    # a mean policy's population: only instance rows whose column of this name is not null
    population: str | None = None


@dataclass(frozen=True)
class Universe:
    """denominator {universe: {column, ids, missing}}: the instance ids of a row's group."""

    column: str
    ids: frozenset[str]
    refuse_missing: bool  # missing: refuse (else as_null: an unlisted id is a null instance)
    # ids: {file, column}: the bundle table holding the ids, read with the bundle
    # (universe.py); until then `ids` is empty
    table: tuple[str, str] | None = None


@dataclass(frozen=True)
class Measured:
    """One measured column and its recipe."""

    name: str
    recipe: str
    policies: tuple[str, ...]
    source: str | None = None
    group: str | None = None
    scale: int | None = None
    tolerance: Tolerance | None = None
    columns: tuple[str, ...] = ()
    total: bool = False  # recipe `sum`: a mean's rows and policies, not divided
    fixed: int | None = (
        None  # denominator {fixed: N} (or the universe's size); None: the rows listed
    )
    universe: Universe | None = None  # denominator {universe: ...}


@dataclass(frozen=True)
class ChanceRule:
    """How exact is too exact: |P - R| <= epsilon * max(|P|, 1), flagged when p < threshold."""

    epsilon: Fraction
    threshold: Fraction


@dataclass(frozen=True)
class InstanceRows:
    """`over: {instances: {group: g}}`: N is a row's number of instance rows (of group g)."""

    group: str | None


@dataclass(frozen=True)
class FeasibleColumn:
    """A column under `feasibility`: N (fixed, or the column holding it), the written
    scale of a mean of 1, the score range [least, greatest], decimals and rounding."""

    name: str
    # an int: N itself; a str: the leaderboard column holding each row's N; InstanceRows:
    # each row's number of instance rows
    count: int | str | InstanceRows
    scale: int
    least: int
    greatest: int
    decimals: int
    rounding: str


@dataclass(frozen=True)
class Prereg:
    """The validated preregistration."""

    path: str
    leaderboard: str
    instances: str
    row_id: str
    instance_key: tuple[str, ...]
    group_by: str | None
    structural: tuple[str, ...]
    no_antecedent: tuple[str, ...]
    measured: dict[str, Measured]
    policies: dict[str, Policy]
    seed: int
    null_draws: int
    chance: ChanceRule
    feasibility: tuple[FeasibleColumn, ...] = ()


def load(path: str) -> Any:
    """Read the prereg file as plain data (plain_yaml.py: missing_file ... bad_prereg)."""
    return document.load(path)


def _bad(path: str, detail: str) -> InputError:
    return InputError("bad_prereg", path, detail)


def _mapping(doc: Any, key: str, path: str, where: str = "") -> dict[Any, Any]:
    if not isinstance(doc, dict) or key not in doc:
        raise _bad(path, f"missing key {where}{key}")
    value = doc[key]
    if not isinstance(value, dict):
        raise _bad(path, f"key {where}{key} is not a mapping")
    return value


def _string(doc: dict[Any, Any], key: str, path: str, where: str = "") -> str:
    if key not in doc:
        raise _bad(path, f"missing key {where}{key}")
    value = doc[key]
    if not isinstance(value, str):
        raise _bad(path, f"key {where}{key} is not a string")
    return value


def _string_list(doc: dict[Any, Any], key: str, path: str, where: str = "") -> tuple[str, ...]:
    if key not in doc:
        raise _bad(path, f"missing key {where}{key}")
    value = doc[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(path, f"key {where}{key} is not a list of strings")
    if len(set(value)) != len(value):
        raise _bad(path, f"key {where}{key} lists a name twice")
    return tuple(value)


def bundle_files(doc: Any, path: str) -> tuple[str, str]:
    """The leaderboard and instance file names, needed before the bundle checks."""
    if not isinstance(doc, dict):
        raise _bad(path, "document is not a mapping")
    document.expect_kind(doc, path, document.LEADERBOARD)
    bundle = _mapping(doc, "bundle", path)
    return (
        _string(bundle, "leaderboard", path, "bundle."),
        _string(bundle, "instances", path, "bundle."),
    )


def _tolerance(tolerances: dict[Any, Any], name: str, path: str) -> Tolerance:
    if name not in tolerances:
        raise _bad(path, f"unknown tolerance {name!r}")
    spec = tolerances[name]
    where = f"tolerances.{name}."
    if not isinstance(spec, dict):
        raise _bad(path, f"key tolerances.{name} is not a mapping")
    if "exact_decimals" not in spec:
        raise _bad(path, f"missing key {where}exact_decimals")
    decimals = spec["exact_decimals"]
    if decimals == "published":  # every cell at the decimals it prints
        decimals = None
    elif not is_int(decimals) or decimals < 0:
        raise _bad(path, f"key {where}exact_decimals is not a non-negative integer or published")
    if "tiers" not in spec:
        raise _bad(path, f"missing key {where}tiers")
    found = tiers(spec["tiers"], where, lambda detail: _bad(path, detail))
    unit = spec.get("tier_unit", "published")
    if unit not in ("published", "last_digit"):
        raise _bad(path, f"key {where}tier_unit is not published or last_digit")
    return Tolerance(name, decimals, found, last_digit=unit == "last_digit")


def _policy(policies: dict[Any, Any], name: str, recipe: str, column: str, path: str) -> Policy:
    if name not in policies:
        raise _bad(path, f"column {column}: unknown policy {name!r}")
    spec = policies[name]
    if not isinstance(spec, dict):
        raise _bad(path, f"key policies.{name} is not a mapping")
    p_recipe = _string(spec, "recipe", path, f"policies.{name}.")
    nulls = _string(spec, "nulls", path, f"policies.{name}.")
    if p_recipe not in NULLS_BY_RECIPE:
        raise _bad(path, f"policy {name}: unknown recipe {p_recipe!r}")
    if nulls not in NULLS_BY_RECIPE[p_recipe]:
        raise _bad(path, f"policy {name}: unknown nulls {nulls!r} for recipe {p_recipe}")
    if p_recipe != recipe:
        raise _bad(path, f"column {column}: policy {name} is for recipe {p_recipe}, not {recipe}")
    population = None
    if "population" in spec:
        population = _population_column(spec["population"], name, p_recipe, path)
    return Policy(name=name, recipe=p_recipe, nulls=nulls, population=population)


def _population_column(raw: Any, name: str, recipe: str, path: str) -> str:
    """The not_null column of a policy's population block (mean policies only)."""
    if recipe != "mean":
        raise _bad(path, f"policy {name}: a population applies to a mean policy only")
    if not isinstance(raw, dict) or set(raw) != {"not_null"}:
        raise _bad(path, f"key policies.{name}.population must map exactly not_null")
    column = raw["not_null"]
    if not isinstance(column, str) or column == "":
        raise _bad(path, f"key policies.{name}.population.not_null is not a column name")
    return column


def _measured(
    name: str,
    spec: Any,
    policies: dict[Any, Any],
    tolerances: dict[Any, Any],
    path: str,
    used: dict[str, Policy],
) -> Measured:
    where = f"columns.measured.{name}."
    if not isinstance(spec, dict):
        raise _bad(path, f"key columns.measured.{name} is not a mapping")
    recipe = _string(spec, "recipe", path, where)
    if recipe not in RECIPES:
        raise _bad(path, f"column {name}: unknown recipe {recipe!r}")
    group: str | None = None
    if recipe in ("rate", "mean", "sum", "single_value") and "group" in spec:
        group = _string(spec, "group", path, where)
    if recipe == "single_value":
        source = _string(spec, "source", path, where)
        return Measured(
            name=name, recipe=recipe, policies=(SINGLE_VALUE_POLICY,), source=source, group=group
        )
    pols = _string_list(spec, "policies", path, where)
    tol = _tolerance(tolerances, _string(spec, "tolerance", path, where), path)
    if recipe == "mean_of_columns":
        cols = _string_list(spec, "columns", path, where)
        for p in pols:
            if p not in policies:
                raise _bad(path, f"column {name}: unknown policy {p!r}")
        return Measured(name=name, recipe=recipe, policies=pols, tolerance=tol, columns=cols)
    source = _string(spec, "source", path, where)
    scale: int | None = None
    if recipe == "rate" or (recipe == "mean" and "scale" in spec):
        if "scale" not in spec:
            raise _bad(path, f"missing key {where}scale")
        scale = spec["scale"]
        if not is_int(scale) or scale < 1:
            raise _bad(path, f"key {where}scale is not a positive integer")
    fixed, universe = (
        _denominator(spec.get("denominator", "rows"), path, where)
        if recipe != "sum"
        else (None, None)
    )
    total = recipe == "sum"  # a sum takes a mean's rows, nulls and policies
    recipe = "mean" if total else recipe
    for p in pols:
        used[p] = _policy(policies, p, recipe, name, path)
    return Measured(
        name=name,
        recipe=recipe,
        policies=pols,
        source=source,
        group=group,
        scale=scale,
        tolerance=tol,
        total=total,
        fixed=fixed,
        universe=universe,
    )


def _denominator(raw: Any, path: str, where: str) -> tuple[int | None, Universe | None]:
    """`denominator`: `rows`, {fixed: N} (N a whole number >= 1) or {universe: {column,
    ids, missing}}; (N, the universe), N the number of ids for a universe."""
    if raw == "rows":
        return None, None
    if isinstance(raw, dict) and set(raw) == {"universe"}:
        u = raw["universe"]
        w = f"{where}denominator.universe"
        if not isinstance(u, dict) or set(u) != {"column", "ids", "missing"}:
            raise _bad(path, f"key {w} must hold exactly column, ids and missing")
        column, ids, missing = u["column"], u["ids"], u["missing"]
        if not isinstance(column, str) or not column:
            raise _bad(path, f"key {w}.column is not a column name")
        table = None
        if isinstance(ids, dict):  # a table of the bundle holding the ids
            if set(ids) != {"file", "column"}:
                raise _bad(path, f"key {w}.ids must hold exactly file and column")
            if not all(isinstance(ids[k], str) and ids[k] for k in ("file", "column")):
                raise _bad(path, f"key {w}.ids names no file or column")
            table, ids = (ids["file"], ids["column"]), []
        elif not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise _bad(path, f"key {w}.ids is not a list of strings")
        if len(set(ids)) != len(ids):
            raise _bad(path, f"key {w}.ids names an id twice")
        if missing not in ("as_null", "refuse"):
            raise _bad(path, f"key {w}.missing is not as_null or refuse")
        universe = Universe(column, frozenset(ids), missing == "refuse", table)
        return (None if table else len(ids)), universe
    if not isinstance(raw, dict) or set(raw) != {"fixed"}:
        raise _bad(path, f"key {where}denominator is not rows, {{fixed: N}} or {{universe: ...}}")
    n = raw["fixed"]
    if not is_int(n) or n < 1:
        raise _bad(path, f"key {where}denominator.fixed is not a positive integer")
    return n, None


def _check_mean_of_columns(measured: dict[str, Measured], path: str) -> None:
    """Listed columns must be measured with every policy; no cycles."""
    for m in measured.values():
        if m.recipe != "mean_of_columns":
            continue
        for c in m.columns:
            other = measured.get(c)
            if other is None or other.recipe == "single_value":
                raise _bad(path, f"column {m.name}: {c!r} is not a measured numeric column")
            for p in m.policies:
                if p not in other.policies:
                    raise _bad(path, f"column {m.name}: {c!r} is not measured with policy {p}")
    state: dict[str, int] = {}

    def visit(name: str) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            raise _bad(path, f"column {name}: mean_of_columns refers to itself")
        state[name] = 1
        for c in measured[name].columns:
            visit(c)
        state[name] = 2

    for name in measured:
        visit(name)


def _draw_settings(doc: dict[Any, Any], path: str) -> tuple[int, int]:
    """(seed, null_draws) of the permutation null."""
    if "seed" not in doc:
        raise _bad(path, "missing key seed")
    seed = doc["seed"]
    if not is_int(seed):
        raise _bad(path, "key seed is not an integer")
    if "null_draws" not in doc:
        raise _bad(path, "missing key null_draws")
    draws = doc["null_draws"]
    if not is_int(draws) or draws < 1:
        raise _bad(path, "key null_draws is not a positive integer")
    return seed, draws


def _chance_rule(doc: dict[Any, Any], path: str) -> ChanceRule:
    """`chance`: a mapping of exactly epsilon > 0 and 0 < threshold < 1, both finite numbers."""
    spec = _mapping(doc, "chance", path)
    extra = [k for k in spec if k not in ("epsilon", "threshold")]
    if extra:
        raise _bad(path, f"unknown key chance.{extra[0]}")
    found: dict[str, Fraction] = {}
    for key in ("epsilon", "threshold"):
        if key not in spec:
            raise _bad(path, f"missing key chance.{key}")
        x = spec[key]
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise _bad(path, f"key chance.{key} is not a finite number")
        found[key] = Fraction(repr(x)) if isinstance(x, float) else Fraction(x)
        if found[key] <= 0:
            raise _bad(path, f"key chance.{key} is not positive")
    if found["threshold"] >= 1:
        raise _bad(path, "key chance.threshold is not below 1")
    return ChanceRule(epsilon=found["epsilon"], threshold=found["threshold"])


@dataclass(frozen=True)
class NullSettings:
    """What the sharded null draws need of the prereg."""

    measured: tuple[str, ...]  # measured column names, prereg order
    seed: int
    null_draws: int


def null_settings(doc: Any, path: str) -> NullSettings:
    """The measured column names, seed and null_draws; bad_prereg as the full validation.

    The schema first, as `validate`; then only the keys these involve
    (columns.measured, seed, null_draws), each as `validate` checks it, in its order."""
    if not isinstance(doc, dict):
        raise _bad(path, "document is not a mapping")
    document.check(doc, path, document.LEADERBOARD)
    columns = _mapping(doc, "columns", path)
    measured_raw = _mapping(columns, "measured", path, "columns.")
    for name in measured_raw:
        if not isinstance(name, str):
            raise _bad(path, "a measured column name is not a string")
    seed, draws = _draw_settings(doc, path)
    return NullSettings(measured=tuple(measured_raw), seed=seed, null_draws=draws)


def _feasibility(
    doc: dict[Any, Any],
    path: str,
    structural: tuple[str, ...],
    no_antecedent: tuple[str, ...],
    measured: dict[str, Measured],
) -> tuple[FeasibleColumn, ...]:
    """`feasibility`, if declared: each column's count, scale, scores, decimals, rounding."""
    if "feasibility" not in doc:
        return ()
    spec = _mapping(doc, "feasibility", path)
    found: list[FeasibleColumn] = []
    for name, raw in spec.items():
        where = f"feasibility.{name}"
        if not isinstance(name, str):
            raise _bad(path, "a feasibility column name is not a string")
        numeric = name in measured and measured[name].recipe != "single_value"
        if not (name in no_antecedent or numeric):
            raise _bad(path, f"{where} names no no_antecedent or numeric measured column")
        if not isinstance(raw, dict):
            raise _bad(path, f"key {where} is not a mapping")
        for key in ("over", "scale", "scores", "decimals", "rounding"):
            if key not in raw:
                raise _bad(path, f"missing key {where}.{key}")
        extra = sorted(
            str(k) for k in raw if k not in ("over", "scale", "scores", "decimals", "rounding")
        )
        if extra:
            raise _bad(path, f"unknown key {where}.{extra[0]}")
        over = raw["over"]
        count: int | str | InstanceRows
        if isinstance(over, dict) and "instances" in over:
            inner = over["instances"]
            if list(over) != ["instances"] or not isinstance(inner, dict):
                raise _bad(path, f"key {where}.over is not {{instances: {{group: <name>}}}}")
            extra = sorted(str(k) for k in inner if k != "group")
            if extra:
                raise _bad(path, f"unknown key {where}.over.instances.{extra[0]}")
            group = inner.get("group")
            if "group" in inner and not isinstance(group, str):
                raise _bad(path, f"key {where}.over.instances.group is not a string")
            if group is not None and not (doc.get("bundle") or {}).get("group_by"):
                raise _bad(path, f"{where}.over.instances.group: the prereg has no group_by")
            count = InstanceRows(group)
        elif isinstance(over, dict):
            if list(over) != ["column"] or not isinstance(over["column"], str):
                raise _bad(path, f"key {where}.over is not {{column: <name>}}")
            count = over["column"]
            if count not in structural and count not in no_antecedent:
                raise _bad(
                    path, f"{where}.over.column {count!r} is no structural or no_antecedent column"
                )
        elif is_int(over) and over >= 1:
            count = over
        else:
            raise _bad(path, f"key {where}.over is not a whole number of at least 1")
        scale = raw["scale"]
        if not is_int(scale) or scale < 1:
            raise _bad(path, f"key {where}.scale is not a whole number of at least 1")
        scores = raw["scores"]
        if not (isinstance(scores, list) and len(scores) == 2 and all(is_int(v) for v in scores)):
            raise _bad(path, f"key {where}.scores is not two whole numbers")
        if scores[0] >= scores[1]:
            raise _bad(path, f"key {where}.scores: the least is not below the greatest")
        decimals = raw["decimals"]
        if not is_int(decimals) or decimals < 0:
            raise _bad(path, f"key {where}.decimals is not a whole number of at least 0")
        rounding = raw["rounding"]
        if rounding not in ("half_even", "half_up", "truncate"):
            raise _bad(path, f"unknown rounding {where}.rounding {rounding!r}")
        found.append(FeasibleColumn(name, count, scale, scores[0], scores[1], decimals, rounding))
    return tuple(found)


def validate(doc: Any, path: str) -> Prereg:
    """The schema, then every key this contestant needs; bad_prereg on the first problem."""
    leaderboard, instances = bundle_files(doc, path)
    document.check(doc, path, document.LEADERBOARD)
    bundle = doc["bundle"]
    row_id = _string(bundle, "row_id", path, "bundle.")
    instance_key = _string_list(bundle, "instance_key", path, "bundle.")
    if not instance_key:
        raise _bad(path, "key bundle.instance_key is empty")
    group_by: str | None = None
    if "group_by" in bundle:
        group_by = _string(bundle, "group_by", path, "bundle.")

    if _string(doc, "rounding", path) != "half_even":
        raise _bad(path, f"unknown rounding {doc['rounding']!r}")
    if _string(doc, "nan_in_sources", path) != "as_null":
        raise _bad(path, f"unknown nan_in_sources {doc['nan_in_sources']!r}")

    columns = _mapping(doc, "columns", path)
    structural = _string_list(columns, "structural", path, "columns.")
    no_antecedent = _string_list(columns, "no_antecedent", path, "columns.")
    measured_raw = _mapping(columns, "measured", path, "columns.")
    policies = _mapping(doc, "policies", path)
    tolerances = _mapping(doc, "tolerances", path)

    seen: set[str] = set()
    for name in (*structural, *no_antecedent, *measured_raw):
        if not isinstance(name, str):
            raise _bad(path, "a measured column name is not a string")
        if name in seen:
            raise _bad(path, f"column {name!r} is classified twice")
        seen.add(name)

    used: dict[str, Policy] = {}
    measured: dict[str, Measured] = {}
    for name, spec in measured_raw.items():
        measured[name] = _measured(name, spec, policies, tolerances, path, used)
    _check_mean_of_columns(measured, path)
    if group_by is None and any(m.group is not None for m in measured.values()):
        raise _bad(path, "missing key bundle.group_by")

    seed, draws = _draw_settings(doc, path)
    chance = _chance_rule(doc, path)
    feasibility = _feasibility(doc, path, structural, no_antecedent, measured)

    return Prereg(
        path=path,
        leaderboard=leaderboard,
        instances=instances,
        row_id=row_id,
        instance_key=instance_key,
        group_by=group_by,
        structural=structural,
        no_antecedent=no_antecedent,
        measured=measured,
        policies=used,
        seed=seed,
        null_draws=draws,
        chance=chance,
        feasibility=feasibility,
    )
