"""A trials-v1 prereg (contract trials v1, section 4): its own checks after the schema."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import TRIALS as KIND
from . import validate
from .common import Checker, Tolerance, classified_once, column_kinds, tiers

REGISTRY = "registry"
TRIALS = "trials"
TASK_MEASURES = ("reward_macro", "reward_ci95", "pass_macro", "pass_ci95", "task_count")
# section 16.3: statistics over the runs inside an entry (need the prereg's `runs` block)
RUN_MEASURES = (
    "run_mean",
    "se_runs_sample",
    "se_runs_population",
    "pooled_rate",
    "se_binomial_pooled",
    "se_clustered_tasks",
    "se_clustered_tasks_inspect",
)
# section 16.5: pass@k / pass^k over the tries of each task, with the column's k
PASS_K_MEASURES = ("pass_at_k", "pass_hat_k")
MEASURES = TASK_MEASURES + RUN_MEASURES + PASS_K_MEASURES
ROUNDINGS = ("half_even", "half_up", "down")  # section 8.1
CSV_TYPES = ("string", "integer", "decimal", "boolean")  # section 4.3
PUBLISHED_GRID = "published"  # exact_decimals: the published text's own decimals
REGISTRY_MEANS = ("exact_where_possible", "rounded_score")
BUILTINS = ("attempted", "scored")

_TOP_KEYS = (
    "version",
    "kind",
    "name",
    "source",
    "leaderboard",
    "policies",
    "scale",
    "rounding",
    "tolerances",
    "seed",
    "bootstrap_draws",
    "null_draws",
    "controls",
    "compare",
    "disclosure",
)
# Optional top-level keys: `runs` (section 16, read by _runs); `amends`, the sealed
# arm this one amends, is the referee's (docs/seal.md): its shape is the schema's;
# `ranks` (section 17) is read by impl_pandas.trials.ranks.
_TOP_OPTIONAL = ("runs", "amends", "ranks")
_REGISTRY_SOURCE = (
    "kind",
    "table",
    "entry",
    "task",
    "score",
    "score_scale",
    "score_decimals",
    "trials",
    "pass_count",
    "perfect_count",
)
_TRIALS_SOURCE = ("kind", "format", "jobs", "table")
_TB_SOURCE_EXTRA = ("duplicates", "min_tries")
_LEADERBOARD = ("table", "row_key", "columns")
_LEADERBOARD_OPTIONAL = ("types",)  # required iff the table is a .csv file
_COLUMNS = ("structural", "no_antecedent", "measured")
_MEASURED = ("measure", "policies", "tolerance", "row_tolerances")
_MEASURED_OPTIONAL = ("rounding", "k", "published")
_REGISTRY_POLICY = ("registry_means", "description")
_TRIAL_POLICY = (
    "select",
    "k",
    "copies",
    "errored",
    "unscored",
    "empty_slots",
    "slots",
    "description",
)
# Optional keys of a trial policy (section 6.3): absent means the trials-v1 behaviour.
_TRIAL_POLICY_OPTIONAL = {
    "reward": ("original", "regraded"),
    "broken_verifier": ("as_zero", "exclude_task_both_sides", "exclude_trial"),
}
_TOLERANCE = ("exact_decimals", "tiers")
_POLICY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*", re.ASCII)
_MAX_DRAWS = 1_000_000
RUN_UNITS = ("tb_run", "attempt")  # section 16: what one run of an entry is
_RUNS = ("unit", "pass_k")


@dataclass(frozen=True)
class Policy:
    """A registry policy (registry_means set) or a trial-selection rule."""

    name: str
    registry_means: str | None = None
    select: str = "all"
    k: int | None = None
    copies: str = "drop"
    errored: str = "zero"
    unscored: str = "zero"
    empty_slots: str = "ignore"
    slots: int | None = None
    reward: str = "original"
    broken_verifier: str = "as_zero"


ATTEMPTED = Policy("attempted")
SCORED = Policy("scored", errored="exclude", unscored="exclude")


@dataclass(frozen=True)
class Rule:
    """One way to recompute a measured cell: a policy, a measure, a rounding (section 8.1).

    `name` is the cells' `policy` field: the policy, then `/measure` when the column lists
    its measures, then `/rounding` when it lists its roundings."""

    name: str
    policy: str
    measure: str
    rounding: str
    k: int | None = None  # the column's k, for pass_at_k / pass_hat_k (section 16.5)


@dataclass(frozen=True)
class Measured:
    """A measured leaderboard column."""

    name: str
    rules: tuple[Rule, ...]
    tolerance: Tolerance
    row_tolerances: dict[str, Tolerance]


@dataclass(frozen=True)
class Leaderboard:
    """The leaderboard block."""

    table: str
    row_key: tuple[str, ...]
    structural: tuple[str, ...]
    no_antecedent: tuple[str, ...]
    measured: dict[str, Measured]
    types: dict[str, str] | None = None  # a CSV table's declared column types
    unpublished: tuple[str, ...] = ()  # measured columns not in the table (section 16.5)

    def kind_of(self) -> dict[str, str]:
        """Leaderboard column name to its kind."""
        return column_kinds(self.structural, self.no_antecedent, self.measured)


@dataclass(frozen=True)
class Source:
    """The source block: a registry (column names) or a trial table."""

    kind: str
    table: str
    entry: tuple[str, ...] = ()
    task: str = ""
    score: str = ""
    score_scale: int = 1
    score_decimals: int = 0
    trials: str = ""
    pass_count: str = ""
    perfect_count: str = ""


@dataclass(frozen=True)
class Prereg:
    """The validated preregistration."""

    source: Source
    leaderboard: Leaderboard | None
    policies: dict[str, Policy] = field(default_factory=dict)
    scale: int = 1
    seed: int = 0
    bootstrap_draws: int = 1
    null_draws: int = 1
    runs: dict[str, Any] | None = None  # section 16: {unit, pass_k (ascending)}, if declared


def table_names(doc: Any) -> tuple[str | None, str | None]:
    """(leaderboard.table, source.table) when they are strings, read leniently.

    Used before validation, so that missing_file and unreadable come first."""

    def pick(block: Any) -> str | None:
        name = block.get("table") if isinstance(block, dict) else None
        return name if isinstance(name, str) else None

    if not isinstance(doc, dict):
        return None, None
    return pick(doc.get("leaderboard")), pick(doc.get("source"))


def _source(chk: Checker, raw: Any) -> Source:
    if not isinstance(raw, dict):
        raise chk.fail("source must be a mapping")
    kind = chk.choice(raw.get("kind"), "source.kind", (REGISTRY, TRIALS))
    if kind == TRIALS:
        tb = raw.get("format") == "tb-run-v1"  # section 16.1: two more keys, the referee's
        spec = chk.block(raw, "source", _TRIALS_SOURCE + (_TB_SOURCE_EXTRA if tb else ()))
        if spec["format"] not in ("harbor-trial-v1", "tb-run-v1", "trial-table-v1"):
            raise chk.fail("source.format must be harbor-trial-v1, tb-run-v1 or trial-table-v1")
        jobs = spec["jobs"]
        if not isinstance(jobs, str) or not jobs or jobs.startswith("/"):
            raise chk.fail("source.jobs must be a folder inside the bundle folder")
        if spec["table"] != "trials.parquet":
            raise chk.fail("source.table must be trials.parquet, the adapter's output")
        return Source(kind=TRIALS, table=spec["table"])
    spec = chk.block(raw, "source", _REGISTRY_SOURCE)
    return Source(
        kind=REGISTRY,
        table=chk.file(spec["table"], "source.table"),
        entry=tuple(chk.columns(spec["entry"], "source.entry", nonempty=True)),
        task=chk.column(spec["task"], "source.task"),
        score=chk.column(spec["score"], "source.score"),
        score_scale=chk.integer(spec["score_scale"], "source.score_scale", 1),
        score_decimals=chk.integer(spec["score_decimals"], "source.score_decimals", 0),
        trials=chk.column(spec["trials"], "source.trials"),
        pass_count=chk.column(spec["pass_count"], "source.pass_count"),
        perfect_count=chk.column(spec["perfect_count"], "source.perfect_count"),
    )


def _tolerances(chk: Checker, raw: Any) -> dict[str, Tolerance]:
    if not isinstance(raw, dict):
        raise chk.fail("tolerances must be a mapping")
    out: dict[str, Tolerance] = {}
    for name, spec_raw in raw.items():
        if not isinstance(name, str):
            raise chk.fail("tolerance names must be strings")
        where = f"tolerances.{name}"
        spec = chk.block(spec_raw, where, _TOLERANCE)
        decimals: int | None = None
        if spec["exact_decimals"] != PUBLISHED_GRID:
            decimals = chk.integer(spec["exact_decimals"], f"{where}.exact_decimals", 0, 12)
        out[name] = Tolerance(name, decimals, tiers(chk, spec["tiers"], where))
    return out


def _policy(chk: Checker, name: str, raw: Any, source_kind: str) -> Policy:
    where = f"policies.{name}"
    if source_kind == REGISTRY:
        spec = chk.block(raw, where, _REGISTRY_POLICY)
        means = chk.choice(spec["registry_means"], f"{where}.registry_means", REGISTRY_MEANS)
        chk.string(spec["description"], f"{where}.description")
        return Policy(name, registry_means=means)
    optional = _trial_policy_optional(chk, raw, where)
    if isinstance(raw, dict):
        raw = {key: v for key, v in raw.items() if key not in _TRIAL_POLICY_OPTIONAL}
    spec = chk.block(raw, where, _TRIAL_POLICY)
    select = chk.choice(spec["select"], f"{where}.select", ("all", "earliest", "latest"))
    k = None
    if select == "all":
        if spec["k"] is not None:
            raise chk.fail(f"{where}.k must be null when select is all")
    else:
        k = chk.integer(spec["k"], f"{where}.k", 1)
    copies = chk.choice(spec["copies"], f"{where}.copies", ("keep", "drop"))
    errored = chk.choice(spec["errored"], f"{where}.errored", ("zero", "exclude"))
    unscored = chk.choice(spec["unscored"], f"{where}.unscored", ("zero", "exclude"))
    empty = chk.choice(spec["empty_slots"], f"{where}.empty_slots", ("zero", "ignore"))
    slots = None
    if empty == "ignore":
        if spec["slots"] is not None:
            raise chk.fail(f"{where}.slots must be null when empty_slots is ignore")
    else:
        slots = chk.integer(spec["slots"], f"{where}.slots", 1)
    chk.string(spec["description"], f"{where}.description")
    return Policy(name, None, select, k, copies, errored, unscored, empty, slots, **optional)


def _trial_policy_optional(chk: Checker, raw: Any, where: str) -> dict[str, str]:
    """The optional reward / broken_verifier keys of a trial policy that are present."""
    if not isinstance(raw, dict):
        return {}
    return {
        key: chk.choice(raw[key], f"{where}.{key}", allowed)
        for key, allowed in _TRIAL_POLICY_OPTIONAL.items()
        if key in raw
    }


def _policies(chk: Checker, raw: Any, source_kind: str) -> dict[str, Policy]:
    if not isinstance(raw, dict):
        raise chk.fail("policies must be a mapping")
    out: dict[str, Policy] = {}
    for name, spec in raw.items():
        if not isinstance(name, str) or not _POLICY_NAME.fullmatch(name):
            raise chk.fail(f"policy name '{name}' must match ^[A-Za-z][A-Za-z0-9_]*$")
        if name in BUILTINS:
            raise chk.fail(f"policy '{name}' is built in and must not be declared")
        out[name] = _policy(chk, name, spec, source_kind)
    if source_kind == TRIALS:
        out["attempted"] = ATTEMPTED
        out["scored"] = SCORED
    return out


def _optional(raw: Any, keys: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    """(the mapping without the optional keys, the optional keys present)."""
    if not isinstance(raw, dict):
        return raw, {}
    return {k: v for k, v in raw.items() if k not in keys}, {k: raw[k] for k in keys if k in raw}


def _measures(chk: Checker, raw: Any, where: str, has_runs: bool) -> tuple[list[str], bool]:
    """(measures, listed): a measure name, or a non-empty list of unique names."""
    listed = isinstance(raw, list)
    names = chk.strings(raw, where, nonempty=True) if listed else [raw]
    for name in names:
        chk.choice(name, where, MEASURES)
        if name in RUN_MEASURES and not has_runs:
            raise chk.fail(f"{where}: {name} is a run measure and needs the runs block")
    return names, listed


def _roundings(chk: Checker, extra: dict[str, Any], where: str) -> tuple[list[str], bool]:
    """(roundings, listed): the column's optional rounding list; absent = half_even."""
    if "rounding" not in extra:
        return ["half_even"], False
    names = chk.strings(extra["rounding"], f"{where}.rounding", nonempty=True)
    for name in names:
        chk.choice(name, f"{where}.rounding", ROUNDINGS)
    return names, True


def _pass_k(chk: Checker, extra: dict[str, Any], where: str, measures: list[str]) -> int | None:
    """The column's k (section 16.5): required iff it names pass_at_k or pass_hat_k; an
    int (not a bool, not 2.0) of at least 1."""
    named = [m for m in measures if m in PASS_K_MEASURES]
    if "k" not in extra:
        if named:
            raise chk.fail(f"{where}: {named[0]} needs the column's k")
        return None
    if not named:
        raise chk.fail(f"{where}.k: k is declared only with pass_at_k or pass_hat_k")
    k = extra["k"]
    if type(k) is not int:
        raise chk.fail(f"{where}.k must be an integer, got {k!r}")
    if k < 1:
        raise chk.fail(f"{where}.k must be >= 1 (k = {k} is refused)")
    return k


def _types(chk: Checker, raw: Any, table: str, columns: list[str]) -> dict[str, str] | None:
    """The declared types of a CSV leaderboard (every column, exactly); None for parquet."""
    is_csv = table.endswith(".csv")
    if raw is None:
        if is_csv:
            raise chk.fail("leaderboard.types is missing: a .csv leaderboard declares its types")
        return None
    if not is_csv:
        raise chk.fail("leaderboard.types is for a .csv leaderboard; parquet has a schema")
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        raise chk.fail("leaderboard.types must map column names to types")
    for name in columns:
        if name not in raw:
            raise chk.fail(f"leaderboard.types gives no type for column '{name}'")
    for name, kind in raw.items():
        if name not in columns:
            raise chk.fail(f"leaderboard.types names '{name}', which the prereg does not classify")
        chk.choice(kind, f"leaderboard.types.{name}", CSV_TYPES)
    return dict(raw)


def _leaderboard(
    chk: Checker,
    raw: Any,
    policies: dict[str, Policy],
    tolerances: dict[str, Tolerance],
    has_runs: bool,
) -> Leaderboard | None:
    if raw is None:
        return None
    raw, lb_extra = _optional(raw, _LEADERBOARD_OPTIONAL)
    spec = chk.block(raw, "leaderboard", _LEADERBOARD)
    table = chk.file(spec["table"], "leaderboard.table")
    row_key = chk.columns(spec["row_key"], "leaderboard.row_key", nonempty=True)
    columns = chk.block(spec["columns"], "leaderboard.columns", _COLUMNS)
    structural = chk.columns(columns["structural"], "leaderboard.columns.structural", False)
    no_ante = chk.columns(columns["no_antecedent"], "leaderboard.columns.no_antecedent", False)
    measured_raw = chk.name_keys(columns["measured"], "leaderboard.columns.measured")
    classified_once(chk, structural, no_ante, measured_raw)
    unpublished = tuple(
        n for n, c in measured_raw.items() if isinstance(c, dict) and "published" in c
    )
    for name in unpublished:
        if measured_raw[name]["published"] is not False:
            raise chk.fail(f"leaderboard.columns.measured.{name}.published must be false")
    in_table = [*row_key, *structural, *no_ante, *(n for n in measured_raw if n not in unpublished)]
    types = _types(chk, lb_extra.get("types"), table, list(dict.fromkeys(in_table)))
    measured: dict[str, Measured] = {}
    for name, col_raw in measured_raw.items():
        where = f"leaderboard.columns.measured.{name}"
        col_raw, extra = _optional(col_raw, _MEASURED_OPTIONAL)
        col = chk.block(col_raw, where, _MEASURED)
        measures, many = _measures(chk, col["measure"], f"{where}.measure", has_runs)
        roundings, rounded = _roundings(chk, extra, where)
        k = _pass_k(chk, extra, where, measures)
        listed = chk.strings(col["policies"], f"{where}.policies", nonempty=True)
        for policy in listed:
            if policy not in policies:
                raise chk.fail(f"{where}.policies: unknown policy '{policy}'")
        tol_name = chk.string(col["tolerance"], f"{where}.tolerance")
        if tol_name not in tolerances:
            raise chk.fail(f"{where}.tolerance: unknown tolerance '{tol_name}'")
        rows_raw = col["row_tolerances"]
        if not isinstance(rows_raw, dict):
            raise chk.fail(f"{where}.row_tolerances must be a mapping")
        row_tols: dict[str, Tolerance] = {}
        for row_id, name_raw in rows_raw.items():
            if not isinstance(row_id, str):
                raise chk.fail(f"{where}.row_tolerances keys must be strings")
            tname = chk.string(name_raw, f"{where}.row_tolerances.{row_id}")
            if tname not in tolerances:
                raise chk.fail(f"{where}.row_tolerances.{row_id}: unknown tolerance '{tname}'")
            row_tols[row_id] = tolerances[tname]
        grids = [tolerances[tol_name], *row_tols.values()]
        if any(t.exact_decimals is None for t in grids) and (types or {}).get(name) != "decimal":
            raise chk.fail(f"{where}: exact_decimals 'published' needs a column of type decimal")
        rules = tuple(
            Rule(
                policy + (f"/{measure}" if many else "") + (f"/{rounding}" if rounded else ""),
                policy,
                measure,
                rounding,
                k if measure in PASS_K_MEASURES else None,
            )
            for policy in listed
            for measure in measures
            for rounding in roundings
        )
        measured[name] = Measured(name, rules, tolerances[tol_name], row_tols)
    if types is not None:
        for key in row_key:
            if types[key] != "string":
                raise chk.fail(f"leaderboard.types.{key}: a row_key column must be string")
        for key in measured:
            if key not in unpublished and types[key] not in ("integer", "decimal"):
                raise chk.fail(f"leaderboard.types.{key}: a measured column is integer or decimal")
    return Leaderboard(
        table, tuple(row_key), tuple(structural), tuple(no_ante), measured, types, unpublished
    )


def _runs(chk: Checker, doc: dict[str, Any]) -> dict[str, Any] | None:
    """The optional top-level `runs` block (section 16): {unit, pass_k}."""
    if "runs" not in doc:
        return None
    raw = doc["runs"]
    if not isinstance(raw, dict) or sorted(raw) != sorted(_RUNS):
        raise chk.fail(f"runs must be a mapping with keys {_RUNS}")
    unit = chk.choice(raw["unit"], "runs.unit", RUN_UNITS)
    ks = raw["pass_k"]
    if not isinstance(ks, list) or any(isinstance(k, bool) or not isinstance(k, int) for k in ks):
        raise chk.fail("runs.pass_k must be a list of integers")
    if any(k < 1 for k in ks):
        raise chk.fail("runs.pass_k: k must be >= 1 (k = 0 is refused)")
    if len(set(ks)) != len(ks):
        raise chk.fail("runs.pass_k lists a k twice")
    return {"unit": unit, "pass_k": sorted(ks)}


def parse(doc: Any, path: str) -> Prereg:
    """The schema (trials-prereg.schema.yaml), then the whole document (bad_prereg)."""
    validate(doc, path, KIND)
    chk = Checker(path)
    runs = _runs(chk, doc)
    has_runs = runs is not None
    top = chk.block({k: v for k, v in doc.items() if k not in _TOP_OPTIONAL}, "", _TOP_KEYS)
    # version, kind and name are the schema's alone (const 1, const trials, a slug)
    source = _source(chk, top["source"])
    tolerances = _tolerances(chk, top["tolerances"])
    policies = _policies(chk, top["policies"], source.kind)
    leaderboard = _leaderboard(chk, top["leaderboard"], policies, tolerances, has_runs)
    if source.kind == REGISTRY and leaderboard is not None:
        for col in leaderboard.measured.values():
            if any(r.k is not None for r in col.rules):
                raise chk.fail(f"column '{col.name}': pass@k needs trials, not a registry")
    scale = chk.integer(top["scale"], "scale", 1)
    if top["rounding"] != "half_even":
        raise chk.fail("rounding must be half_even")
    seed = chk.integer(top["seed"], "seed", 0)
    boot = chk.integer(top["bootstrap_draws"], "bootstrap_draws", 1, _MAX_DRAWS)
    nulls = chk.integer(top["null_draws"], "null_draws", 1, _MAX_DRAWS)
    controls = top["controls"]
    if not isinstance(controls, dict):
        raise chk.fail("controls must be a mapping")
    # `controls`, `compare` and `disclosure` are the referee's: present (checked above),
    # not read here; a control's perturbed bundle is recomputed like any other.
    chk.block(top["disclosure"], "disclosure", ("auditor", "relations", "publication"))
    return Prereg(source, leaderboard, policies, scale, seed, boot, nulls, runs)
