"""Load a trials-v1 preregistration (docs/trials-contract.md section 4) and check it
against workflow/schemas/trials-prereg.schema.yaml and its own logic."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from audit.cells.prereg import BRACED, NONBLANK, braced, load_yaml, refuse_undecided, validator
from audit.core import disclosure
from audit.core.bundle_paths import check_inside
from audit.errors import AuditError
from audit.trials.record import BUILT_INS, Prereg, parse

RUN_MEASURES = (
    "run_mean",
    "se_runs_sample",
    "se_runs_population",
    "pooled_rate",
    "se_binomial_pooled",
    "se_clustered_tasks",
    "se_clustered_tasks_inspect",
)

# section 16.5: over the tries of each task, with the column's declared k
PASS_K_MEASURES = ("pass_at_k", "pass_hat_k")


def unpublished(spec: dict[str, Any]) -> bool:
    """A measured column declared ``published: false``: not in the table (section 16.5)."""
    return spec.get("published", True) is False


def measures(spec: dict[str, Any]) -> list[str]:
    """A measured column's measures: one name, or the list it declares (section 8.1)."""
    m = spec["measure"]
    return list(m) if isinstance(m, list) else [m]


def bundle_tables(rec: Prereg) -> list[str]:
    """Tables of the bundle beyond the source's and the leaderboard's: none in trials v1."""
    return []


def _check_schema(doc: Any, path: str) -> None:
    errors = sorted(
        validator("trials-prereg").iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))
    )
    if errors:
        err = errors[0]
        inside = braced(err)  # a file name with { or } (audit/cells/prereg.py)
        if inside is not None:
            where = "/".join(str(x) for x in inside.absolute_path)
            raise AuditError("bad_prereg", path, f"at {where}: {BRACED}")
        if err.validator == "oneOf" and err.path and err.path[-1] == "leaderboard":
            # null, or a leaderboard object: name the object's first problem (e.g. a
            # column's k), not only "no shape"
            inner = [e for e in err.context if e.relative_path or e.validator != "type"]
            if inner:
                err = min(inner, key=lambda e: list(map(str, e.absolute_path)))
        where = "/".join(str(x) for x in err.absolute_path) or "(top level)"
        msg = err.message if len(err.message) < 200 else err.message[:197] + "..."
        if err.validator == "oneOf":
            msg = "matches none of the allowed shapes"
        if err.validator == "pattern" and err.validator_value == NONBLANK:
            msg = "must be a non-empty string (not blank)"
        raise AuditError("bad_prereg", path, f"at {where}: {msg}")


def policy_names(doc: dict[str, Any]) -> list[str]:
    """Every policy computed: the declared ones plus, for trial sources, the built-ins."""
    names = set(doc["policies"])
    if doc["source"]["kind"] == "trials":
        names |= set(BUILT_INS)
    return sorted(names)


def _check_logic(doc: dict[str, Any], path: str) -> None:
    def bad(detail: str) -> AuditError:
        return AuditError("bad_prereg", path, detail)

    src, lb = doc["source"], doc["leaderboard"]
    named = [(f"source.{k}", src[k]) for k in ("table", "jobs") if k in src]
    check_inside(named + ([("leaderboard.table", lb["table"])] if lb else []), bad)
    kind = doc["source"]["kind"]
    for name, spec in sorted(doc["policies"].items()):
        if name in BUILT_INS:
            raise bad(f"policy {name!r} is built in and may not be declared")
        if ("registry_means" in spec) != (kind == "registry"):
            raise bad(f"policy {name!r} has the wrong shape for a {kind} source")
        if kind == "trials":
            if (spec["k"] is None) != (spec["select"] == "all"):
                raise bad(f"policy {name!r}: k must be null iff select is all")
            if (spec["slots"] is None) != (spec["empty_slots"] == "ignore"):
                raise bad(f"policy {name!r}: slots must be null iff empty_slots is ignore")
    for name, tol in sorted(doc["tolerances"].items()):
        if any(b <= a for a, b in pairwise(tol["tiers"])):
            raise bad(f"tolerance {name!r}: tiers must strictly increase, got {tol['tiers']}")
    known = set(policy_names(doc))
    lb = doc["leaderboard"]
    if lb is not None:
        cols = lb["columns"]
        seen: set[str] = set()
        for name in [*cols["structural"], *cols["no_antecedent"], *cols["measured"]]:
            if name in seen:
                raise bad(f"leaderboard column {name!r} is classified twice")
            seen.add(name)
        types = lb.get("types")
        if (types is not None) != lb["table"].endswith(".csv"):
            raise bad("leaderboard.types is required for a .csv table and only for one")
        named = {*lb["row_key"], *seen} - {
            n for n, spec in cols["measured"].items() if unpublished(spec)
        }
        if types is not None and set(types) != named:
            odd = min(set(types) ^ named)
            raise bad(f"leaderboard.types must type exactly the classified columns ({odd!r})")
        for key in lb["row_key"] if types is not None else []:
            if types[key] != "string":
                raise bad(f"leaderboard.types: row_key column {key!r} must be string")
        for name, spec in sorted(cols["measured"].items()):
            for pol in spec["policies"]:
                if pol not in known:
                    raise bad(f"column {name!r}: unknown policy {pol!r}")
            for tol in [spec["tolerance"], *spec["row_tolerances"].values()]:
                if tol not in doc["tolerances"]:
                    raise bad(f"column {name!r}: unknown tolerance {tol!r}")
                grid = doc["tolerances"][tol]["exact_decimals"]
                if grid == "published" and (types or {}).get(name, "") != "decimal":
                    raise bad(f"column {name!r}: exact_decimals 'published' needs type decimal")
            if (
                types is not None
                and not unpublished(spec)
                and types[name]
                not in (
                    "integer",
                    "decimal",
                )
            ):
                raise bad(f"column {name!r}: a measured column is typed integer or decimal")
            pass_k = [m for m in measures(spec) if m in PASS_K_MEASURES]
            if pass_k and "k" not in spec:
                raise bad(f"column {name!r}: {pass_k[0]} needs the column's k (section 16.5)")
            if pass_k and kind != "trials":
                raise bad(f"column {name!r}: {pass_k[0]} counts tries; a registry has none")
            if "k" in spec and not pass_k:
                raise bad(f"column {name!r}: k is declared only with pass_at_k or pass_hat_k")
            over_runs = [m for m in measures(spec) if m in RUN_MEASURES]
            if over_runs and doc.get("runs") is None:
                raise bad(f"column {name!r}: {over_runs[0]} needs the runs block (section 16.3)")
    _check_ranks(doc, known, bad)
    disclosure.check_visible(doc, path)
    disclosure.check_unique(doc, path)
    if doc["compare"] is not None and kind != "trials":
        raise bad("compare applies to a trials source only")
    for name, spec in sorted(doc["controls"].items()):
        target = spec["target"] if isinstance(spec["target"], dict) else {}
        if kind == "registry":
            if spec["kind"] not in REGISTRY_CONTROLS:
                raise bad(f"control {name!r}: {REGISTRY_CONTROLS_NOT[spec['kind']]}")
            if "run" in target or "runs" in target:
                raise bad(f"control {name!r}: a registry control targets an entry, not a run")
            continue
        if "entry" in target or "entries" in target:
            raise bad(f"control {name!r}: a trial control targets a run, not an entry")
        ordered = [p for p, s in doc["policies"].items() if s["select"] != "all"]
        if spec["kind"] == "reorder_starts" and not ordered:
            raise bad(f"control {name!r}: reorder_starts needs an earliest or latest policy")


def _check_ranks(doc: dict[str, Any], known: set[str], bad: Any) -> None:
    """The optional ``ranks`` block against the leaderboard (section 17), as both
    contestants judge it: no leaderboard to order; a policy the prereg does not compute;
    a column that is not a measured, published column whose measure is or lists
    reward_macro. The schema checks only the block's shape, so before this the lock
    accepted such a block and the contestants refused it after the lock."""
    ranks = doc.get("ranks")
    if ranks is None:
        return
    lb = doc["leaderboard"]
    if lb is None:
        raise bad("ranks: declared with leaderboard: null (nothing published to order)")
    if ranks["policy"] not in known:
        raise bad(f"ranks/policy: {ranks['policy']!r} is not a policy of the prereg")
    cols = lb["columns"]["measured"]
    for name in ranks["columns"]:
        spec = cols.get(name)
        if spec is None or unpublished(spec) or "reward_macro" not in measures(spec):
            raise bad(
                f"ranks/columns: {name!r} is not a published measured column of the"
                " leaderboard with measure reward_macro (section 17)"
            )


# docs/controls.md: what a registry (one row per entry and task, no trial rows) can take
REGISTRY_CONTROLS = ("flip", "drop", "swap")
REGISTRY_CONTROLS_NOT = {
    "duplicate": "a registry has no trial copies to add, and a second row of one "
    "(entry, task) is duplicate_key (trials contract 3)",
    "reorder_starts": "a registry has no start times to reorder",
}


def load(path: str | Path) -> dict[str, Any]:
    """A checked trials prereg, or an AuditError naming the file and the first problem; a
    draft with anything undecided is refused naming each undecided item (``undecided``)."""
    doc = load_yaml(path)
    refuse_undecided(doc, str(path), "trials-prereg", missing_alone=False)
    check(doc, str(path))
    return doc


def check(doc: Any, path: str) -> None:
    """The schema, then the logic: the first problem, as an AuditError."""
    _check_schema(doc, path)
    _check_logic(doc, path)


def load_record(path: str | Path) -> Prereg:
    """The checked trials prereg (``load``) parsed once into its frozen record
    (audit/trials/record.py): what the referee reads of a trials prereg."""
    return parse(load(path), str(path))
