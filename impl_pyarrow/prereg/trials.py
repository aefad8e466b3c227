"""The trials prereg (trials v1, section 4; runs block, section 16): after its schema
(.document), what a schema cannot say."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import TrialInputError, fail
from . import document
from .fields import Tolerance, is_int, tiers

PER_TASK_MEASURES: tuple[str, ...] = (
    "reward_macro",
    "reward_ci95",
    "pass_macro",
    "pass_ci95",
    "task_count",
)
# Section 16.3: measures over the runs inside an entry; only with a `runs` block.
OVER_RUNS: tuple[str, ...] = (
    "run_mean",
    "se_runs_sample",
    "se_runs_population",
    "pooled_rate",
    "se_binomial_pooled",
    "se_clustered_tasks",
    "se_clustered_tasks_inspect",
)
# Section 16.5: over each task's tries, with the k its column declares.
TRIES_MEASURES: tuple[str, ...] = ("pass_at_k", "pass_hat_k")
MEASURES: tuple[str, ...] = PER_TASK_MEASURES + OVER_RUNS + TRIES_MEASURES
ROUNDING_RULES: tuple[str, ...] = ("half_even", "half_up", "down")
COLUMN_TYPES: tuple[str, ...] = ("string", "integer", "decimal", "boolean")
BUILT_IN: dict[str, dict[str, Any]] = {
    "attempted": {
        "select": "all",
        "k": None,
        "copies": "drop",
        "errored": "zero",
        "unscored": "zero",
        "empty_slots": "ignore",
        "slots": None,
    },
    "scored": {
        "select": "all",
        "k": None,
        "copies": "drop",
        "errored": "exclude",
        "unscored": "exclude",
        "empty_slots": "ignore",
        "slots": None,
    },
}
TOP_KEYS = (
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
REGISTRY_KEYS = (
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
TRIALS_KEYS = ("kind", "format", "jobs", "table")
TB_EXTRA_KEYS = ("duplicates", "min_tries")
DISCLOSURE_KEYS = ("auditor", "relations", "publication")
LEADERBOARD_KEYS = ("table", "row_key", "columns")
COLUMNS_KEYS = ("structural", "no_antecedent", "measured")
MEASURED_KEYS = ("measure", "policies", "tolerance", "row_tolerances")
REGISTRY_POLICY_KEYS = ("registry_means", "description")
TRIALS_POLICY_KEYS = (
    "select",
    "k",
    "copies",
    "errored",
    "unscored",
    "empty_slots",
    "slots",
    "description",
)
# A trial policy may also say which reward counts and what a broken verifier does
# (section 6.3); each key, when absent, keeps the trials-v1 meaning (the first choice).
VERIFIER_POLICY_CHOICES: dict[str, tuple[str, ...]] = {
    "reward": ("original", "regraded"),
    "broken_verifier": ("as_zero", "exclude_task_both_sides", "exclude_trial"),
}
TOLERANCE_KEYS = ("exact_decimals", "tiers")
SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*")
POLICY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
MAX_DRAWS = 1_000_000


@dataclass(frozen=True)
class Policy:
    """A registry policy (registry_means) or a trial-selection rule."""

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


@dataclass(frozen=True)
class Source:
    """Where the per-task values come from."""

    kind: str  # registry | trials
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
class Recipe:
    """(policy, measure, rounding) and the label the output files give it."""

    label: str
    policy: str
    measure: str
    rounding: str
    k: int | None = None  # only for the tries measures (section 16.5)


@dataclass(frozen=True)
class Measured:
    """A measured leaderboard column: every recipe it is judged under."""

    name: str
    recipes: tuple[Recipe, ...]
    tolerance: Tolerance
    row_tolerances: dict[str, Tolerance]
    in_table: bool = True  # False: declared `published: false`, not a table column


@dataclass(frozen=True)
class Board:
    """The leaderboard block."""

    table: str
    row_key: tuple[str, ...]
    structural: tuple[str, ...]
    no_antecedent: tuple[str, ...]
    measured: dict[str, Measured]
    column_types: dict[str, str] | None = None  # declared for a .csv table, else None

    def table_columns(self) -> list[str]:
        """The measured columns the table must hold (not the ``published: false`` ones)."""
        return [n for n, m in self.measured.items() if m.in_table]


@dataclass(frozen=True)
class TrialsPrereg:
    """The validated preregistration."""

    path: str
    source: Source
    leaderboard: Board | None
    policies: dict[str, Policy]  # every computed policy: declared, plus built-ins for trials
    scale: int
    seed: int
    bootstrap_draws: int
    null_draws: int
    runs: dict[str, Any] | None = None  # section 16: {"unit": ..., "pass_k": sorted ks}


def load(path: str) -> Any:
    """Read the prereg file as plain data, as the leaderboard's (plain_yaml.py)."""
    return document.load(path, fail)


def _bad(path: str, detail: str) -> TrialInputError:
    return fail("bad_prereg", path, detail)


def _keys(doc: Any, keys: tuple[str, ...], path: str, where: str) -> dict[Any, Any]:
    """doc must be a mapping with exactly these keys."""
    if not isinstance(doc, dict):
        raise _bad(path, f"{where or 'document'} is not a mapping")
    for k in keys:
        if k not in doc:
            raise _bad(path, f"missing key {where}{k}")
    for k in doc:
        if k not in keys:
            raise _bad(path, f"unknown key {where}{k}")
    return doc


def _string(doc: dict[Any, Any], key: str, path: str, where: str) -> str:
    value = doc[key]
    if not isinstance(value, str):
        raise _bad(path, f"key {where}{key} is not a string")
    return value


def _strings(
    doc: dict[Any, Any], key: str, path: str, where: str, non_empty: bool = False
) -> tuple[str, ...]:
    value = doc[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(path, f"key {where}{key} is not a list of strings")
    if len(set(value)) != len(value):
        raise _bad(path, f"key {where}{key} lists a name twice")
    if non_empty and not value:
        raise _bad(path, f"key {where}{key} is empty")
    return tuple(value)


def _int(
    doc: dict[Any, Any], key: str, path: str, where: str, low: int, high: int | None = None
) -> int:
    value = doc[key]
    if not is_int(value) or value < low or (high is not None and value > high):
        rng = f">= {low}" if high is None else f"in {low}..{high}"
        raise _bad(path, f"key {where}{key} is not an integer {rng}")
    return int(value)


def _const(doc: dict[Any, Any], key: str, value: Any, path: str, where: str = "") -> None:
    got = doc[key]
    if type(got) is not type(value) or got != value:
        raise _bad(path, f"key {where}{key} must be {value!r}")


def table_names(doc: Any, path: str) -> tuple[str | None, str]:
    """(leaderboard table or None, source table): needed before the bundle files are opened."""
    if not isinstance(doc, dict):
        raise _bad(path, "document is not a mapping")
    document.expect_kind(doc, path, document.TRIALS, fail)
    for key in ("source", "leaderboard"):
        if key not in doc:
            raise _bad(path, f"missing key {key}")
    source = doc["source"]
    if not isinstance(source, dict):
        raise _bad(path, "key source is not a mapping")
    if "table" not in source:
        raise _bad(path, "missing key source.table")
    src_table = _string(source, "table", path, "source.")
    board = doc["leaderboard"]
    if board is None:
        return None, src_table
    if not isinstance(board, dict):
        raise _bad(path, "key leaderboard is neither null nor a mapping")
    if "table" not in board:
        raise _bad(path, "missing key leaderboard.table")
    return _string(board, "table", path, "leaderboard."), src_table


def _source(raw: Any, path: str) -> Source:
    if not isinstance(raw, dict) or "kind" not in raw:
        raise _bad(path, "missing key source.kind")
    kind = raw["kind"]
    w = "source."
    if kind == "registry":
        s = _keys(raw, REGISTRY_KEYS, path, w)
        return Source(
            kind="registry",
            table=_string(s, "table", path, w),
            entry=_strings(s, "entry", path, w, non_empty=True),
            task=_string(s, "task", path, w),
            score=_string(s, "score", path, w),
            score_scale=_int(s, "score_scale", path, w, 1),
            score_decimals=_int(s, "score_decimals", path, w, 0),
            trials=_string(s, "trials", path, w),
            pass_count=_string(s, "pass_count", path, w),
            perfect_count=_string(s, "perfect_count", path, w),
        )
    if kind == "trials":
        if raw.get("format") == "tb-run-v1":  # section 16.1; the extra keys are the referee's
            s = _keys(raw, TRIALS_KEYS + TB_EXTRA_KEYS, path, w)
        else:
            s = _keys(raw, TRIALS_KEYS, path, w)
            if s.get("format") != "trial-table-v1":  # a table an intake adapter wrote
                _const(s, "format", "harbor-trial-v1", path, w)
        _string(s, "jobs", path, w)
        return Source(kind="trials", table=_string(s, "table", path, w))
    raise _bad(path, f"unknown source.kind {kind!r}")


def _tolerances(raw: Any, path: str) -> dict[str, Tolerance]:
    if not isinstance(raw, dict):
        raise _bad(path, "key tolerances is not a mapping")
    out: dict[str, Tolerance] = {}
    for name, spec in raw.items():
        if not isinstance(name, str):
            raise _bad(path, "a tolerance name is not a string")
        w = f"tolerances.{name}."
        spec = _keys(spec, TOLERANCE_KEYS, path, w)
        decimals = (
            None
            if spec["exact_decimals"] == "published"
            else _int(spec, "exact_decimals", path, w, 0, 12)
        )
        found = tiers(spec["tiers"], w, lambda detail: _bad(path, detail))
        out[name] = Tolerance(name=name, exact_decimals=decimals, tiers=found)
    return out


def _choice(spec: dict[Any, Any], key: str, allowed: tuple[str, ...], path: str, where: str) -> str:
    value = spec[key]
    if not isinstance(value, str) or value not in allowed:
        raise _bad(path, f"key {where}{key} is not one of {', '.join(allowed)}")
    return value


def _nullable_int(spec: dict[Any, Any], key: str, path: str, where: str) -> int | None:
    value = spec[key]
    if value is None:
        return None
    if not is_int(value) or value < 1:
        raise _bad(path, f"key {where}{key} is neither null nor an integer >= 1")
    return int(value)


def _policies(raw: Any, kind: str, path: str) -> dict[str, Policy]:
    if not isinstance(raw, dict):
        raise _bad(path, "key policies is not a mapping")
    out: dict[str, Policy] = {}
    for name, spec in raw.items():
        if not isinstance(name, str) or not POLICY_NAME.fullmatch(name):
            raise _bad(path, f"policy name {name!r} is not of the form [A-Za-z][A-Za-z0-9_]*")
        if name in BUILT_IN:
            raise _bad(path, f"policy {name} is built in and cannot be declared")
        w = f"policies.{name}."
        if not isinstance(spec, dict):
            raise _bad(path, f"key policies.{name} is not a mapping")
        shape = REGISTRY_POLICY_KEYS if kind == "registry" else TRIALS_POLICY_KEYS
        verifier_keys: dict[str, str] = {}
        if kind != "registry":
            verifier_keys = {
                key: _choice(spec, key, allowed, path, w)
                for key, allowed in VERIFIER_POLICY_CHOICES.items()
                if key in spec
            }
            spec = {key: v for key, v in spec.items() if key not in VERIFIER_POLICY_CHOICES}
        if set(spec) != set(shape) and (
            set(spec) == set(REGISTRY_POLICY_KEYS) or set(spec) == set(TRIALS_POLICY_KEYS)
        ):
            raise _bad(path, f"policy {name} has the wrong shape for a {kind} source")
        spec = _keys(spec, shape, path, w)
        _string(spec, "description", path, w)
        if kind == "registry":
            means = _choice(
                spec, "registry_means", ("exact_where_possible", "rounded_score"), path, w
            )
            out[name] = Policy(name=name, registry_means=means)
            continue
        select = _choice(spec, "select", ("all", "earliest", "latest"), path, w)
        k = _nullable_int(spec, "k", path, w)
        if (k is None) != (select == "all"):
            raise _bad(path, f"key {w}k must be null if and only if select is all")
        copies = _choice(spec, "copies", ("keep", "drop"), path, w)
        errored = _choice(spec, "errored", ("zero", "exclude"), path, w)
        unscored = _choice(spec, "unscored", ("zero", "exclude"), path, w)
        empty = _choice(spec, "empty_slots", ("zero", "ignore"), path, w)
        slots = _nullable_int(spec, "slots", path, w)
        if (slots is None) != (empty == "ignore"):
            raise _bad(path, f"key {w}slots must be null if and only if empty_slots is ignore")
        out[name] = Policy(
            name=name,
            select=select,
            k=k,
            copies=copies,
            errored=errored,
            unscored=unscored,
            empty_slots=empty,
            slots=slots,
            **verifier_keys,
        )
    return out


def _labels(values: Any, allowed: tuple[str, ...], path: str, where: str) -> tuple[str, ...]:
    """A non-empty list of distinct names, each one of `allowed`."""
    if not isinstance(values, list) or not values:
        raise _bad(path, f"key {where} is not a non-empty list")
    if len(set(map(repr, values))) != len(values):
        raise _bad(path, f"key {where} lists a name twice")
    for v in values:
        if not isinstance(v, str) or v not in allowed:
            raise _bad(path, f"key {where} holds {v!r}, not one of {', '.join(allowed)}")
    return tuple(values)


def _tries_k(spec_raw: dict[Any, Any], measures: tuple[str, ...], path: str, mw: str) -> int | None:
    """Section 16.5: the k of a column naming pass_at_k / pass_hat_k (and only of one)."""
    wants = any(m in TRIES_MEASURES for m in measures)
    if "k" not in spec_raw:
        if wants:
            raise _bad(path, f"key {mw}k is missing: pass_at_k and pass_hat_k need it")
        return None
    if not wants:
        raise _bad(path, f"key {mw}k belongs to a column naming pass_at_k or pass_hat_k")
    k = spec_raw["k"]
    if isinstance(k, bool) or not isinstance(k, int):
        raise _bad(path, f"key {mw}k is not an integer: {k!r}")
    if k <= 0:
        raise _bad(path, f"key {mw}k is {k}; it must be at least 1")
    return k


def _column_types(
    b: dict[Any, Any], table: str, classified: list[str], path: str
) -> dict[str, str] | None:
    csv_table = table.endswith(".csv")
    if "types" not in b:
        if csv_table:
            raise _bad(path, "a .csv leaderboard needs leaderboard.types (nothing is guessed)")
        return None
    if not csv_table:
        raise _bad(path, "leaderboard.types applies to a .csv table only")
    raw = b["types"]
    if not isinstance(raw, dict):
        raise _bad(path, "key leaderboard.types is not a mapping")
    missing = [c for c in classified if c not in raw]
    if missing:
        raise _bad(path, f"leaderboard.types has no type for {missing[0]!r}")
    for col, typ in raw.items():
        if col not in classified:
            raise _bad(path, f"leaderboard.types names {col!r}, which is not classified")
        if typ not in COLUMN_TYPES:
            raise _bad(path, f"leaderboard.types.{col} is not one of {', '.join(COLUMN_TYPES)}")
    return dict(raw)


def _board(
    raw: Any,
    policies: dict[str, Policy],
    tolerances: dict[str, Tolerance],
    path: str,
    runs_declared: bool,
) -> Board | None:
    if raw is None:
        return None
    w = "leaderboard."
    if not isinstance(raw, dict):
        raise _bad(path, "key leaderboard is neither null nor a mapping")
    b = _keys({k: v for k, v in raw.items() if k != "types"}, LEADERBOARD_KEYS, path, w)
    table = _string(b, "table", path, w)
    row_key = _strings(b, "row_key", path, w, non_empty=True)
    cw = "leaderboard.columns."
    cols = _keys(b["columns"], COLUMNS_KEYS, path, cw)
    structural = _strings(cols, "structural", path, cw)
    no_antecedent = _strings(cols, "no_antecedent", path, cw)
    measured_raw = cols["measured"]
    if not isinstance(measured_raw, dict):
        raise _bad(path, f"key {cw}measured is not a mapping")
    seen: set[str] = set()
    for name in (*structural, *no_antecedent, *measured_raw):
        if not isinstance(name, str):
            raise _bad(path, "a measured column name is not a string")
        if name in seen:
            raise _bad(path, f"column {name!r} is classified twice")
        seen.add(name)
    not_in_table = {n for n, v in measured_raw.items() if isinstance(v, dict) and "published" in v}
    for n in sorted(not_in_table):
        if measured_raw[n]["published"] is not False:
            raise _bad(path, f"key {cw}measured.{n}.published can only be false")
    classified = list(row_key) + [c for c in seen if c not in row_key and c not in not_in_table]
    types = _column_types(raw, table, classified, path)
    measured: dict[str, Measured] = {}
    for name, spec_raw in measured_raw.items():
        mw = f"{cw}measured.{name}."
        if not isinstance(spec_raw, dict):
            raise _bad(path, f"key {mw[:-1]} is not a mapping")
        spec = _keys(
            {k: v for k, v in spec_raw.items() if k not in ("rounding", "k", "published")},
            MEASURED_KEYS,
            path,
            mw,
        )
        listed_measures = isinstance(spec["measure"], list)
        measures = (
            _labels(spec["measure"], MEASURES, path, f"{mw}measure")
            if listed_measures
            else (_choice(spec, "measure", MEASURES, path, mw),)
        )
        needs_runs = [m for m in measures if m in OVER_RUNS]
        if needs_runs and not runs_declared:
            raise _bad(path, f"column {name}: {needs_runs[0]} is taken over runs: no runs block")
        k = _tries_k(spec_raw, measures, path, mw)
        listed_rounding = "rounding" in spec_raw
        roundings = (
            _labels(spec_raw["rounding"], ROUNDING_RULES, path, f"{mw}rounding")
            if listed_rounding
            else ("half_even",)
        )
        pols = _strings(spec, "policies", path, mw, non_empty=True)
        for p in pols:
            if p not in policies:
                raise _bad(path, f"column {name}: unknown policy {p!r}")
        tol_name = _string(spec, "tolerance", path, mw)
        if tol_name not in tolerances:
            raise _bad(path, f"column {name}: unknown tolerance {tol_name!r}")
        rt_raw = spec["row_tolerances"]
        if not isinstance(rt_raw, dict):
            raise _bad(path, f"key {mw}row_tolerances is not a mapping")
        row_tols: dict[str, Tolerance] = {}
        for rid, tname in rt_raw.items():
            if not isinstance(rid, str) or not isinstance(tname, str):
                raise _bad(path, f"key {mw}row_tolerances maps a non-string")
            if tname not in tolerances:
                raise _bad(path, f"column {name}: unknown tolerance {tname!r}")
            row_tols[rid] = tolerances[tname]
        uses_text_grid = any(
            t.exact_decimals is None for t in (tolerances[tol_name], *row_tols.values())
        )
        if uses_text_grid and (types is None or types.get(name) != "decimal"):
            raise _bad(path, f"column {name}: a 'published' grid needs the column typed decimal")
        recipes = []
        for p in pols:
            for m in measures:
                for r in roundings:
                    label = p
                    if listed_measures:
                        label += "/" + m
                    if listed_rounding:
                        label += "/" + r
                    recipes.append(
                        Recipe(
                            label=label,
                            policy=p,
                            measure=m,
                            rounding=r,
                            k=k if m in TRIES_MEASURES else None,
                        )
                    )
        measured[name] = Measured(
            name=name,
            recipes=tuple(recipes),
            tolerance=tolerances[tol_name],
            row_tolerances=row_tols,
            in_table=name not in not_in_table,
        )
    if types is not None:
        for col in row_key:
            if types[col] != "string":
                raise _bad(path, f"row_key column {col!r} must be typed string")
        for col in measured:
            if col not in not_in_table and types[col] not in ("integer", "decimal"):
                raise _bad(path, f"measured column {col!r} must be typed integer or decimal")
    return Board(
        table=table,
        row_key=row_key,
        structural=structural,
        no_antecedent=no_antecedent,
        measured=measured,
        column_types=types,
    )


HEX_DIGITS = frozenset("0123456789abcdef")
ARM_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
ARM_REST = ARM_FIRST | frozenset("._-")
UNITS = ("tb_run", "attempt")
RUNS_KEYS = ("pass_k", "unit")


def check_amends(doc: Any, path: str) -> None:
    """`amends` (optional, the referee's business): a mapping of exactly an arm name and
    a 64-hex head. Checked before the bundle files are looked for."""
    if not isinstance(doc, dict) or "amends" not in doc:
        return
    block = doc["amends"]
    if not isinstance(block, dict) or set(block) != {"arm", "head"}:
        raise _bad(path, "key amends must map exactly arm and head")
    arm, head = block["arm"], block["head"]
    good_arm = (
        isinstance(arm, str)
        and 0 < len(arm) <= 100
        and arm[0] in ARM_FIRST
        and set(arm) <= ARM_REST
    )
    good_head = isinstance(head, str) and len(head) == 64 and set(head) <= HEX_DIGITS
    if not (good_arm and good_head):
        raise _bad(path, "key amends: arm is not an arm name or head not 64 hex")


def _runs_block(raw: Any, path: str) -> dict[str, Any] | None:
    """The optional top-level ``runs`` block (section 16)."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or tuple(sorted(raw)) != RUNS_KEYS:
        raise _bad(path, "runs must be a mapping with keys unit and pass_k")
    unit = raw["unit"]
    if unit not in UNITS:
        raise _bad(path, f"runs.unit {unit!r} is not one of {UNITS}")
    ks = raw["pass_k"]
    if not isinstance(ks, list) or not all(type(k) is int for k in ks):
        raise _bad(path, "runs.pass_k is not a list of integers")
    if min(ks, default=1) < 1:
        raise _bad(path, "runs.pass_k holds k < 1 (k = 0 is refused)")
    if len(ks) != len(set(ks)):
        raise _bad(path, "runs.pass_k repeats a k")
    return {"unit": unit, "pass_k": sorted(ks)}


def validate(full: Any, path: str) -> TrialsPrereg:
    """The schema, then every key of section 4, then the runs block; bad_prereg on the
    first problem. ``amends`` is checked by `check_amends` and left to the referee."""
    if not isinstance(full, dict):
        raise _bad(path, "document is not a mapping")
    document.check(full, path, document.TRIALS, fail)
    check_amends(full, path)
    runs_raw = full.get("runs")
    # `ranks` (section 17) is read by impl_pyarrow.trials.ranks
    doc = {k: v for k, v in full.items() if k not in ("runs", "amends", "ranks")}
    runs_declared = runs_raw is not None
    doc = _keys(doc, TOP_KEYS, path, "")
    _const(doc, "version", 1, path)
    _const(doc, "kind", "trials", path)
    name = doc["name"]
    if not isinstance(name, str) or not SLUG.fullmatch(name):
        raise _bad(path, "key name is not a slug ^[a-z0-9][a-z0-9._-]*$")
    source = _source(doc["source"], path)
    declared = _policies(doc["policies"], source.kind, path)
    scale = _int(doc, "scale", path, "", 1)
    _const(doc, "rounding", "half_even", path)
    tolerances = _tolerances(doc["tolerances"], path)
    seed = _int(doc, "seed", path, "", 0)
    boot = _int(doc, "bootstrap_draws", path, "", 1, MAX_DRAWS)
    nulls = _int(doc, "null_draws", path, "", 1, MAX_DRAWS)
    # The controls are the referee's (it perturbs the bundle; this program only
    # recomputes what it is given): the key must be a mapping, its entries unread.
    if not isinstance(doc["controls"], dict):
        raise _bad(path, "key controls is not a mapping")
    if doc["compare"] is not None and not isinstance(doc["compare"], dict):
        raise _bad(path, "key compare is neither null nor a mapping")
    # The disclosure is the referee's too (it prints it and marks the rows): its keys only.
    _keys(doc["disclosure"], DISCLOSURE_KEYS, path, "disclosure.")
    policies = dict(declared)
    if source.kind == "trials":
        for bname, spec in BUILT_IN.items():
            policies[bname] = Policy(name=bname, **spec)
    board = _board(doc["leaderboard"], policies, tolerances, path, runs_declared)
    if board is not None and source.kind != "trials":
        with_k = [m.name for m in board.measured.values() if any(r.k for r in m.recipes)]
        if with_k:
            raise _bad(path, f"column {with_k[0]}: pass@k counts tries, a registry has none")
    return TrialsPrereg(
        path=path,
        source=source,
        leaderboard=board,
        policies=policies,
        scale=scale,
        seed=seed,
        bootstrap_draws=boot,
        null_draws=nulls,
        runs=_runs_block(runs_raw, path),
    )
