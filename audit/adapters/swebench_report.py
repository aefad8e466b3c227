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

With ``--published TABLE --key COLUMN --key-of model|id`` the claim is a published
table instead (a leaderboard printing each model's % resolved): ``leaderboard.parquet``
is that table as shipped, and each instance row carries the column ``COLUMN`` holding
the published key its report joins: the report's ``model`` (as its file name spells it,
``/`` written ``__``) or its ``id`` (``<model>.<run_id>``), as declared, never guessed.
A published row no report joins is listed (its measured cells are no data); a report
no published row joins is listed, its rows written but joined to nothing; two reports
joining one published row are refused (``duplicate_key``). ``prereg.draft.yaml`` is
drafted with the join's keys filled in.

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

FORMAT = "swebench-report-v2"
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
        "format": FORMAT,
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


KEY_OF = ("model", "id")  # which part of a report a published key equals
DRAFT = "prereg.draft.yaml"


def join(
    table: pl.DataFrame,
    doc: dict[str, Any],
    published_path: str,
    key: str,
    key_of: str,
) -> tuple[pl.DataFrame, pl.DataFrame, dict[str, Any]]:
    """The published table as the leaderboard, and the instance rows with the key
    column ``key`` each report joins by (its ``model`` or its ``id``, as declared)."""
    from audit.adapters import published

    if key_of not in KEY_OF:
        raise AuditError("bad_args", "--key-of", f"one of {', '.join(KEY_OF)}: {key_of!r}")
    if key in SCHEMA and not (key == "id" and key_of == "id"):
        raise AuditError(
            "bad_args",
            "--key",
            f"{key!r} is a column the instance table already has"
            f" ({', '.join(SCHEMA)}); the published key column needs another name",
        )
    leaderboard = published.read(published_path, key)
    keys = set(leaderboard[key].to_list())
    by_key: dict[str, str] = {}
    for entry, e in sorted(doc["entries"].items()):
        value = e["model"] if key_of == "model" else entry
        if value in by_key:
            raise AuditError(
                "duplicate_key",
                published_path,
                f"published row {value!r} is joined by two reports, {by_key[value]} and"
                f" {e['file']} (--key-of {key_of}: declare --key-of id to keep runs apart)",
            )
        by_key[value] = e["file"]
        e["key"] = value
        e["joined"] = value in keys
    entry_key = {entry: e["key"] for entry, e in doc["entries"].items()}
    joined = table.with_columns(
        pl.col("id").replace_strict(entry_key, return_dtype=pl.String).alias(key)
    ).select([key, *[c for c in SCHEMA if c != key]])
    doc["published"] = {
        "file": Path(published_path).name,
        "blake3": file_blake3(published_path),
        "key": key,
        "key_of": key_of,
        "rows": leaderboard.height,
        "rows_without_report": sorted(keys - set(by_key)),
        "reports_without_row": sorted(
            e["file"] for e in doc["entries"].values() if not e["joined"]
        ),
    }
    return joined, leaderboard, doc


def adapt_to(
    reports: list[str],
    out: str,
    policies: list[str],
    benchmark: str = "swe-bench",
    all_or_nothing: bool = False,
    published: str | None = None,
    key: str | None = None,
    key_of: str | None = None,
) -> tuple[pl.DataFrame, dict[str, Any]]:
    table, leaderboard, doc = adapt(reports, policies, benchmark, all_or_nothing)
    draft = None
    if published is not None:
        if key is None or key_of is None:
            raise AuditError(
                "bad_args", "--published", "a published table needs --key and --key-of"
            )
        table, leaderboard, doc = join(table, doc, published, key, key_of)
        draft = _draft(out, table, leaderboard, key)
    elif key is not None or key_of is not None:
        raise AuditError("bad_args", "--key", "--key and --key-of join a --published table")
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, df in (("instances.parquet", table), ("leaderboard.parquet", leaderboard)):
        tmp = out_dir / f".{name}.tmp"
        df.write_parquet(tmp)
        tmp.replace(out_dir / name)
    write_atomic(out_dir / "adapter.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    if draft is not None:
        from audit.cells import draft_prereg

        draft_prereg.write_doc(out_dir / DRAFT, draft, f"{published} (adapt-swebench)")
    return table, doc


def _draft(out: str, table: pl.DataFrame, leaderboard: pl.DataFrame, key: str) -> dict[str, Any]:
    """draft-prereg's draft with the join's keys filled in: they are the format's, not
    a decision."""
    from audit.cells import draft_prereg

    tables = {
        "instances.parquet": {c: str(t) for c, t in table.schema.items()},
        "leaderboard.parquet": {c: str(t) for c, t in leaderboard.schema.items()},
    }
    keys = {
        "leaderboard": "leaderboard.parquet",
        "instances": "instances.parquet",
        "row_id": key,
        "instance_key": [key, "instance_id"],
        "group_by": "benchmark",
    }
    return draft_prereg.draft_of(
        name=draft_prereg.slug(Path(out).resolve().name),
        tables=tables,
        bundle=keys,
        structural=[key],
    )


def summary_lines(doc: dict[str, Any]) -> list[str]:
    pub = doc.get("published")
    lines = [
        f"adapt-swebench: {doc['rows']} instance row(s), {len(doc['entries'])} leaderboard"
        " row(s) written (one per report)"
        if pub is None
        else f"adapt-swebench: {doc['rows']} instance row(s) from {len(doc['entries'])}"
        f" report(s), {pub['rows']} leaderboard row(s) written (the published table)"
    ]
    for entry, e in sorted(doc["entries"].items()):
        rates = ", ".join(
            f"{p} {r['resolved']}/{r['denominator']}" for p, r in e["policies"].items()
        )
        lines.append(f"  {entry}: resolved {rates}")
    if pub is not None:
        lines.append(
            f"  joined to {pub['file']} by {pub['key']} = the report's {pub['key_of']}:"
            f" {pub['rows']} published row(s) written as leaderboard.parquet"
        )
        if pub["rows_without_report"]:
            lines.append(
                f"  {len(pub['rows_without_report'])} published row(s) no report joins"
                f" (their measured cells are no data): {', '.join(pub['rows_without_report'])}"
            )
        if pub["reports_without_row"]:
            lines.append(
                f"  {len(pub['reports_without_row'])} report(s) no published row joins"
                f" (written, joined to nothing): {', '.join(pub['reports_without_row'])}"
            )
    from audit.adapters.intake_out import skipped_lines

    return lines + skipped_lines(doc["skipped"])
