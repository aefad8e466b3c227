"""SWE-bench harness run reports (schema v2) into an instance table.

``python -m audit adapt-swebench REPORT.json... --denominators total,submitted,completed
--out DIR``. A report is what the harness's ``make_run_report`` writes as
``<model>.<run_id>.json`` (the model with ``/`` as ``__``; the run id is the part after
the name's last dot, so a model name may hold dots). It lists the dataset's instances in
five disjoint outcome classes (``resolved_ids``, ``unresolved_ids``, ``error_ids``,
``empty_patch_ids``, ``incomplete_ids``: their union is the dataset, ``total_instances``
long), and the ``submitted_ids`` and ``completed_ids`` beside them.

Each report gives one row per dataset instance: ``id`` (``<model>.<run_id>``),
``benchmark``, ``instance_id``, ``status`` (the outcome class), ``submitted``,
``completed``, ``resolved`` (true for resolved, false for unresolved and an empty
patch, null for an error or an incomplete instance: the harness judged none, and
``status`` says why) and ``failure_class`` (``infra`` or
``ambiguous`` where the report's optional ``infra_failure_ids`` / ``ambiguous_failure_ids``
name an unresolved or errored instance, which stays in its class; else null). The resolve rate's denominator
is a declared policy, never a default: ``total`` (every instance of the dataset),
``submitted`` (the submitted ids, as the harness counts them: a prediction for an id
outside the dataset counts) or ``completed`` (instances whose evaluation wrote a
report). ``adapter.json`` gives, per report, the counts and, for each declared
policy, resolved / denominator. ``leaderboard.parquet`` is the published claim, one row
per report keyed by ``id`` (the instance rows join it by the same column): the
report's own counts as it prints them (``total_instances``, ``submitted_instances``,
``resolved_instances``, ...).

Refused (exit 2): a schema other than v2, a missing or mistyped key, a count that is
not its list's length, an id listed twice or in two outcome classes, completed ids
outside resolved / unresolved / error, a submitted id counted incomplete, two reports
of one model and run, and an empty result.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from audit.errors import AuditError
from audit.files import file_blake3, write_atomic

OUTCOMES = ("resolved", "unresolved", "error", "empty_patch", "incomplete")
LISTS = (*OUTCOMES, "submitted", "completed")
COUNTS = {
    "resolved_instances": "resolved",
    "unresolved_instances": "unresolved",
    "error_instances": "error",
    "empty_patch_instances": "empty_patch",
    "completed_instances": "completed",
}
POLICIES = ("total", "submitted", "completed")
SCHEMA = {
    "id": pl.String,
    "benchmark": pl.String,
    "instance_id": pl.String,
    "status": pl.String,
    "submitted": pl.Boolean,
    "completed": pl.Boolean,
    "resolved": pl.Boolean,
    "failure_class": pl.String,
}
NOTES = {"infra_failure": "infra", "ambiguous_failure": "ambiguous"}  # optional lists
UNJUDGED = ("error", "incomplete")  # resolved is null for these (the reason: status)
LEADERBOARD_SCHEMA = {
    "id": pl.String,
    "benchmark": pl.String,
    "model": pl.String,
    "run_id": pl.String,
    **{k: pl.Int64 for k in ("total_instances", "submitted_instances", *COUNTS)},
}


def parse_name(path: str) -> tuple[str, str]:
    stem = Path(path).name.removesuffix(".json")
    model, dot, run_id = stem.rpartition(".")
    if not dot or not model or not run_id or not Path(path).name.endswith(".json"):
        raise AuditError("bad_name", path, "a report is named <model>.<run_id>.json")
    return model, run_id


def _load(path: str) -> dict[str, Any]:
    p = Path(path)
    if not p.is_file():
        raise AuditError("missing_file", path, "no such file")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise AuditError("unreadable", path, "not JSON") from None
    if not isinstance(doc, dict):
        raise AuditError("bad_report", path, "not a JSON object")
    if doc.get("schema_version") != 2:
        raise AuditError(
            "bad_report", path, f"schema_version is {doc.get('schema_version')!r}, not 2"
        )
    for name in LISTS:
        ids = doc.get(f"{name}_ids")
        if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
            raise AuditError("bad_report", path, f"{name}_ids is not a list of ids")
    for key in (*COUNTS, "total_instances", "submitted_instances"):
        if not isinstance(doc.get(key), int) or isinstance(doc.get(key), bool):
            raise AuditError("bad_report", path, f"{key} is not an integer")
    return doc


def check(doc: dict[str, Any], path: str) -> dict[str, set[str]]:
    """The id sets, once every count and class holds together."""

    def bad(detail: str) -> AuditError:
        return AuditError("inconsistent_report", path, detail)

    sets: dict[str, set[str]] = {}
    for name in LISTS:
        ids = doc[f"{name}_ids"]
        sets[name] = set(ids)
        if len(sets[name]) != len(ids):
            twice = sorted({x for x in ids if ids.count(x) > 1})
            raise bad(f"{name}_ids lists {', '.join(twice)} more than once")
    for key, name in COUNTS.items():
        if doc[key] != len(sets[name]):
            raise bad(f"{key} is {doc[key]} but {name}_ids lists {len(sets[name])}")
    if doc["submitted_instances"] != len(sets["submitted"]):
        raise bad(
            f"submitted_instances is {doc['submitted_instances']} "
            f"but submitted_ids lists {len(sets['submitted'])}"
        )
    seen: dict[str, str] = {}
    for name in OUTCOMES:
        for iid in sorted(sets[name]):
            if iid in seen:
                raise bad(f"{iid} is in both {seen[iid]}_ids and {name}_ids")
            seen[iid] = name
    if doc["total_instances"] != len(seen):
        raise bad(
            f"total_instances is {doc['total_instances']} but the outcome lists hold {len(seen)}"
        )
    judged = sets["resolved"] | sets["unresolved"]
    if not judged <= sets["completed"]:
        raise bad(f"{', '.join(sorted(judged - sets['completed']))} judged but not completed")
    stray = sets["completed"] - judged - sets["error"]
    if stray:
        raise bad(f"{', '.join(sorted(stray))} completed but neither judged nor an error")
    both = sets["submitted"] & sets["incomplete"]
    if both:
        raise bad(f"{', '.join(sorted(both))} submitted but counted incomplete")
    for name in NOTES:
        ids = doc.get(f"{name}_ids", [])
        if not isinstance(ids, list) or not all(isinstance(x, str) for x in ids):
            raise AuditError("bad_report", path, f"{name}_ids is not a list of ids")
        sets[name] = set(ids)
        outside = sets[name] - sets["unresolved"] - sets["error"]
        if outside:
            raise bad(
                f"{', '.join(sorted(outside))} in {name}_ids but neither unresolved nor error"
            )
    if sets["infra_failure"] & sets["ambiguous_failure"]:
        raise bad("an id is both an infra and an ambiguous failure")
    return sets


def _rows(entry: str, benchmark: str, sets: dict[str, set[str]]) -> list[dict[str, Any]]:
    status = {iid: name for name in OUTCOMES for iid in sets[name]}
    return [
        {
            "id": entry,
            "benchmark": benchmark,
            "instance_id": iid,
            "status": status[iid],
            "submitted": iid in sets["submitted"],
            "completed": iid in sets["completed"],
            # an instance the harness could not judge (an error, or never run) has no
            # outcome: null, its reason in status, so a prereg's null policy decides it
            "resolved": None if status[iid] in UNJUDGED else status[iid] == "resolved",
            "failure_class": next((c for n, c in NOTES.items() if iid in sets[n]), None),
        }
        for iid in sorted(status)
    ]


def _rate(resolved: int, denominator: int) -> dict[str, Any]:
    exact = Fraction(resolved, denominator) if denominator else None
    return {
        "resolved": resolved,
        "denominator": denominator,
        "rate": None if exact is None else f"{exact.numerator}/{exact.denominator}",
        "percent": None if exact is None else float(exact * 100),
    }


def parse_policies(spec: str) -> list[str]:
    names = [x.strip() for x in spec.split(",") if x.strip()]
    unknown = [x for x in names if x not in POLICIES]
    if not names or unknown or len(set(names)) != len(names):
        raise AuditError(
            "bad_args", "--denominators", f"declare one or more of {', '.join(POLICIES)}: {spec!r}"
        )
    return names


def adapt(
    reports: list[str],
    policies: list[str],
    benchmark: str = "swe-bench",
    all_or_nothing: bool = False,
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, Any]]:
    from audit.adapters.intake_out import batch

    rows: list[dict[str, Any]] = []
    claims: list[dict[str, Any]] = []
    entries: dict[str, Any] = {}
    loaded, skipped = batch(reports, _load, all_or_nothing)
    for path, doc in loaded:
        model, run_id = parse_name(path)
        entry = f"{model}.{run_id}"
        if entry in entries:
            raise AuditError("duplicate_key", path, f"a second report of {entry}")
        sets = check(doc, path)
        mine = _rows(entry, benchmark, sets)
        if not mine:
            raise AuditError("empty", path, "the report lists no instance")
        rows.extend(mine)
        denominators = {
            "total": doc["total_instances"],
            "submitted": len(sets["submitted"]),
            "completed": len(sets["completed"]),
        }
        claims.append(
            {
                "id": entry,
                "benchmark": benchmark,
                "model": model,
                "run_id": run_id,
                **{k: doc[k] for k in ("total_instances", "submitted_instances", *COUNTS)},
            }
        )
        entries[entry] = {
            "file": Path(path).name,
            "blake3": file_blake3(path),
            "model": model,
            "run_id": run_id,
            "counts": {f"{n}_instances": len(sets[n]) for n in LISTS}
            | {"total_instances": doc["total_instances"]},
            "submitted_outside_dataset": sorted(
                sets["submitted"] - {i for n in OUTCOMES for i in sets[n]}
            ),
            "policies": {p: _rate(len(sets["resolved"]), denominators[p]) for p in policies},
        }
    if not rows:
        raise AuditError("empty", "adapt-swebench", "no report named")
    table = pl.DataFrame(rows, schema=SCHEMA)
    leaderboard = pl.DataFrame(claims, schema=LEADERBOARD_SCHEMA)
    doc = {
        "format": "swebench-report-v2",
        "benchmark": benchmark,
        "denominator_policies": {
            "total": "every instance of the dataset (total_instances)",
            "submitted": "every submitted id (submitted_ids, as the harness counts them)",
            "completed": "every instance whose evaluation wrote a report (completed_ids)",
        },
        "declared": policies,
        "rows": table.height,
        "skipped": skipped,
        "unjudged_null": {n: "resolved is null: status says why" for n in UNJUDGED},
        "entries": entries,
    }
    return table, leaderboard, doc


def adapt_to(
    reports: list[str],
    out: str,
    policies: list[str],
    benchmark: str = "swe-bench",
    all_or_nothing: bool = False,
) -> tuple[pl.DataFrame, dict[str, Any]]:
    table, leaderboard, doc = adapt(reports, policies, benchmark, all_or_nothing)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, df in (("instances.parquet", table), ("leaderboard.parquet", leaderboard)):
        tmp = out_dir / f".{name}.tmp"
        df.write_parquet(tmp)
        tmp.replace(out_dir / name)
    write_atomic(out_dir / "adapter.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return table, doc


def summary_lines(doc: dict[str, Any]) -> list[str]:
    lines = [
        f"adapt-swebench: {doc['rows']} instance row(s), {len(doc['entries'])} leaderboard"
        " row(s) written (one per report)"
    ]
    for entry, e in sorted(doc["entries"].items()):
        rates = ", ".join(
            f"{p} {r['resolved']}/{r['denominator']}" for p, r in e["policies"].items()
        )
        lines.append(f"  {entry}: resolved {rates}")
    from audit.adapters.intake_out import skipped_lines

    return lines + skipped_lines(doc["skipped"])
