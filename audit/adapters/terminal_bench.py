"""The tb-run adapter (docs/trials-contract.md section 16.1): a folder of
Terminal-Bench submissions (each one or more ``tb run`` outputs) -> the trial
table of section 2 plus the columns ``tb_run``, ``attempt`` and ``failure_mode``.

Referee side, one implementation. Named ``tb-run-v1`` in ``audit.adapters.formats``.
Nothing is written unless every file was read.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters.base import (
    ABSENT,
    SCHEMA,
    SETTING_NAMES,
    STATUSES,
    Options,
    Reader,
    canonical_time,
    encode_setting,
    get_path,
    refuse_empty,
    sort_rows,
    unread_files,
)
from audit.errors import AuditError

FORMAT = "tb-run-v1"
RUN_FILE = "results.json"  # <run>/results.json and <run>/<task>/<trial>/results.json
RUN_FILE_SUFFIX = "_results.json"  # <entry>/<name>_results.json: a run shipped as one file
DUPLICATE_RULES = ("once", "as_shipped")
LOOKED_FOR = (
    "<entry>/<run>/results.json, <entry>/results.json, <entry>/<name>_results.json "
    "(tb run files with a 'results' list) and <run>/<task>/<trial>/results.json"
)

# Settings the tb harness records per run: (setting, file, path). First file that has
# the path wins; a setting found in neither is null (not recorded).
TB_SETTINGS: list[tuple[str, list[tuple[str, str]]]] = [
    ("harness", [("tb.lock", "agent.name"), ("run_metadata.json", "agent_name")]),
    ("model", [("tb.lock", "agent.model_name"), ("run_metadata.json", "model_name")]),
    ("timeout_multiplier", [("tb.lock", "run_config.global_timeout_multiplier")]),
    ("agent_timeout_sec", [("tb.lock", "run_config.global_agent_timeout_sec")]),
    ("verifier_timeout_sec", [("tb.lock", "run_config.global_test_timeout_sec")]),
    ("tb_version", [("tb.lock", "harness.package_version"), ("tb.lock", "harness.version")]),
    ("dataset_name", [("tb.lock", "dataset.name"), ("run_metadata.json", "dataset_name")]),
    (
        "dataset_version",
        [("tb.lock", "dataset.version"), ("run_metadata.json", "dataset_version")],
    ),
    ("n_attempts", [("tb.lock", "run_config.n_attempts"), ("run_metadata.json", "n_attempts")]),
    (
        "n_concurrent_trials",
        [
            ("tb.lock", "run_config.n_concurrent_trials"),
            ("run_metadata.json", "n_concurrent_trials"),
        ],
    ),
    ("tb_commit", [("run_metadata.json", "commit_hash")]),
    ("agent_kwargs", [("run_metadata.json", "agent_kwargs")]),
]
TB_SETTING_NAMES = [s for s, _ in TB_SETTINGS]  # some share a name with section 2.3 settings
# Settings that the board rules compare between the runs of one entry.
BOARD_SETTINGS = (
    "tb_version",
    "dataset_name",
    "dataset_version",
    "timeout_multiplier",
    "agent_timeout_sec",
    "verifier_timeout_sec",
    "n_attempts",
    "model",
    "harness",
)

_ATTEMPT = re.compile(r"\.(\d+)-of-(\d+)(?:\.|$)")


def _is_run_doc(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("results"), list)


def _path_get(doc: Any, path: str) -> Any:
    return get_path(doc, path.split(".")) if doc is not None else ABSENT


class _Run:
    """One tb run found in an entry."""

    def __init__(self, entry: str, name: str, run_file: str, folder: str | None) -> None:
        self.entry = entry
        self.name = name  # relative to the entry: "." for the entry folder itself
        self.run_file = run_file  # path relative to the jobs dir
        self.folder = folder  # the run folder (relative to jobs) or None for a lone file
        self.duplicate_of: str | None = None
        self.nested_in: str | None = None


def _attempt(trial_name: Any, task: str) -> int | None:
    if not isinstance(trial_name, str) or not trial_name.startswith(task + "."):
        return None
    m = _ATTEMPT.match(trial_name[len(task) :])
    return int(m.group(1)) if m else None


def _find_runs(rd: Reader, entry: str) -> list[_Run]:
    """Run folders (a results.json with a results list) at any depth, and lone run files."""
    runs: list[_Run] = []
    jobs = Path(rd.jobs)

    def visit(rel: str, name: str, parent: _Run | None) -> None:
        f = jobs / rel / RUN_FILE
        here: _Run | None = None
        if f.is_file():
            doc = rd.peek_json(f"{rel}/{RUN_FILE}")
            if _is_run_doc(doc):
                here = _Run(entry, name, f"{rel}/{RUN_FILE}", rel)
                here.nested_in = parent.name if parent is not None else None
                runs.append(here)
        for sub in rd.subdirs(rel):
            visit(f"{rel}/{sub}", sub if name == "." else f"{name}/{sub}", here or parent)

    visit(entry, ".", None)
    for fname in sorted(os.listdir(jobs / entry)):
        lone = fname.endswith(RUN_FILE_SUFFIX) and (jobs / entry / fname).is_file()
        if lone and _is_run_doc(rd.peek_json(f"{entry}/{fname}")):
            runs.append(_Run(entry, fname[: -len(RUN_FILE_SUFFIX)], f"{entry}/{fname}", None))
    runs.sort(key=lambda r: r.name)
    return runs


def _trial(rd: Reader, where: str, t: Any) -> dict[str, Any]:
    """The fields of one tb trial object (from a run list or a trial file)."""
    if not isinstance(t, dict):
        raise AuditError("bad_trial", where, "a trial is not a JSON object")
    task = t.get("task_id")
    if not isinstance(task, str) or not task:
        raise AuditError("bad_trial", where, "task_id is missing, not a string, or empty")
    tid = t.get("id") if isinstance(t.get("id"), str) and t.get("id") else t.get("uuid")
    if not isinstance(tid, str) or not tid:
        raise AuditError("bad_trial", where, f"trial of {task!r} has neither id nor uuid")
    resolved = t.get("is_resolved")
    if resolved is not None and not isinstance(resolved, bool):
        raise AuditError("bad_type", where, f"is_resolved {resolved!r} is not true, false or null")
    fm = t.get("failure_mode")
    if fm is not None and not isinstance(fm, str):
        raise AuditError("bad_trial", where, "failure_mode is neither a string nor null")
    return {"task": task, "trial_id": tid, "resolved": resolved, "failure_mode": fm, "raw": t}


def _row(entry: str, run: _Run, folder: str, tr: dict[str, Any], settings: dict[str, Any]):
    t = tr["raw"]
    started, finished = t.get("trial_started_at"), t.get("trial_ended_at")
    fm = tr["failure_mode"]
    failed = fm is not None and fm != "unset"
    row: dict[str, Any] = {
        "run": entry,
        "task": tr["task"],
        "trial_id": tr["trial_id"],
        "copy": 0,
        "folder": folder,
        "trial_name": t["trial_name"] if isinstance(t.get("trial_name"), str) else None,
        "job_id": settings.get("job_id"),
        # is_resolved true/false is a verdict (reward 1/0); null is no result.
        "status": "unscored" if tr["resolved"] is None else "scored",
        "reward": None if tr["resolved"] is None else (1.0 if tr["resolved"] else 0.0),
        "reward_keys": None,
        "exception": failed,
        "error_type": fm if failed else None,
        "verifier_ran": isinstance(t.get("test_started_at"), str),
        "started_at": canonical_time(started),
        "started_at_raw": started if isinstance(started, str) else None,
        "finished_at": canonical_time(finished),
        "finished_at_raw": finished if isinstance(finished, str) else None,
        "config_source": "none",
        # tb records no verifier warnings and no regrades (section 16.1); the agent ran
        # when the trial recorded when its agent started.
        "agent_ran": isinstance(t.get("agent_started_at"), str),
        "verifier_broken": False,
        "verifier_broken_reason": None,
        "reward_regraded": None,
    }
    for s in SETTING_NAMES:
        row[s] = settings.get(s)
    for s in TB_SETTING_NAMES:
        row[s] = settings.get(s)
    row["tb_run"] = run.name
    row["attempt"] = _attempt(row["trial_name"], tr["task"])
    row["failure_mode"] = fm
    return row


def _run_settings(rd: Reader, run: _Run, doc: dict[str, Any]) -> dict[str, Any]:
    files: dict[str, Any] = {}
    if run.folder is not None:
        for name in ("tb.lock", "run_metadata.json"):
            if (Path(rd.jobs) / run.folder / name).is_file():
                files[name] = rd.read_json(f"{run.folder}/{name}")
    out: dict[str, Any] = {}
    for setting, paths in TB_SETTINGS:
        value: Any = ABSENT
        for fname, path in paths:
            if fname in files:
                value = _path_get(files[fname], path)
                if value is not ABSENT:
                    break
        out[setting] = encode_setting(value)
    out["job_id"] = encode_setting(doc["id"]) if isinstance(doc.get("id"), str) else None
    if out["job_id"] is None and "run_metadata.json" in files:
        out["job_id"] = encode_setting(_path_get(files["run_metadata.json"], "uuid"))
    acc = _path_get(files.get("run_metadata.json"), "accuracy")
    out["_metadata_accuracy"] = None if acc is ABSENT else acc
    return out


def _trial_files(rd: Reader, run: _Run, nested: set[str]) -> list[tuple[str, str]]:
    """(folder, file) of <run>/<task>/<trial>/results.json, walk order, nested runs skipped."""
    out = []
    if run.folder is None:
        return out
    for task in rd.subdirs(run.folder):
        if f"{run.folder}/{task}" in nested:
            continue
        for trial in rd.subdirs(f"{run.folder}/{task}"):
            rel = f"{run.folder}/{task}/{trial}"
            if (Path(rd.jobs) / rel / RUN_FILE).is_file():
                out.append((rel, f"{rel}/{RUN_FILE}"))
    return out


def _run_rows(
    rd: Reader, run: _Run, nested: set[str]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows of one run: the run's own list is the record; trial files cross-check it."""
    doc = rd.read_json(run.run_file)
    settings = _run_settings(rd, run, doc)
    listed = [
        _trial(rd, f"{rd.where(run.run_file)} (results[{i}])", t)
        for i, t in enumerate(doc["results"])
    ]
    files = _trial_files(rd, run, nested)
    by_id: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for folder, f in files:
        tr = _trial(rd, rd.where(f), rd.read_json(f))
        by_id.setdefault(tr["trial_id"], []).append((folder, tr))
    rows = []
    list_ids = set()
    for i, tr in enumerate(listed):
        list_ids.add(tr["trial_id"])
        rows.append(_row(run.entry, run, f"{run.run_file}#{i}", tr, settings))
    agree, disagree = 0, []
    for tid, found in by_id.items():
        for folder, tr in found:
            twin = next((x for x in listed if x["trial_id"] == tid), None)
            if twin is None:
                continue
            same = (twin["task"], twin["resolved"], twin["failure_mode"]) == (
                tr["task"],
                tr["resolved"],
                tr["failure_mode"],
            )
            if same:
                agree += 1
            else:
                disagree.append(folder)
    n_res = sum(1 for tr in listed if tr["resolved"] is True)
    n_unres = sum(1 for tr in listed if tr["resolved"] is not True)
    rec_acc = doc.get("accuracy")
    info = {
        "run_file": run.run_file,
        "trials": len(listed),
        "trial_files": len(files),
        "nested_in": run.nested_in,
        "crosscheck": {
            "accuracy_recorded": rec_acc,
            "accuracy_recomputed": n_res / len(listed) if listed else None,
            "accuracy_agrees": isinstance(rec_acc, int | float)
            and bool(listed)
            and rec_acc == n_res / len(listed),
            "n_resolved_recorded": doc.get("n_resolved"),
            "n_resolved_recomputed": n_res,
            "n_unresolved_recorded": doc.get("n_unresolved"),
            "n_unresolved_recomputed": n_unres,
            "metadata_accuracy": settings["_metadata_accuracy"],
            "trial_files_agree": agree,
            "trial_files_disagree": sorted(disagree),
            "trial_files_not_listed": sorted(
                folder for tid, fs in by_id.items() if tid not in list_ids for folder, _ in fs
            ),
            "listed_without_trial_file": sorted(
                tr["trial_id"] for tr in listed if tr["trial_id"] not in by_id
            )
            if run.folder is not None and files
            else [],
        },
        "settings": {k: settings[k] for k in TB_SETTING_NAMES},
    }
    return rows, info


def _board(entry_rows: list[dict[str, Any]], runs: dict[str, Any], min_tries: int) -> dict:
    """Board rules from the data, reported, never judged."""
    tries: dict[str, int] = {}
    for r in entry_rows:
        if r["copy"] == 0:
            tries[r["task"]] = tries.get(r["task"], 0) + 1
    counted = {n: info for n, info in runs.items() if info["counted"]}
    differ = {}
    for s in BOARD_SETTINGS:
        values = {n: info["settings"][s] for n, info in counted.items()}
        if len(set(values.values())) > 1:
            differ[s] = values
    by_mode: dict[str, int] = {}
    for r in entry_rows:
        if r["copy"] == 0 and r["status"] != "scored":
            key = r["failure_mode"] if r["failure_mode"] is not None else "null"
            by_mode[key] = by_mode.get(key, 0) + 1
    below = sorted(t for t, n in tries.items() if n < min_tries)
    return {
        "min_tries": min_tries,
        "tries_per_task": {"min": min(tries.values()), "max": max(tries.values())}
        if tries
        else None,
        "tasks_below_min_tries": len(below),
        "tasks": len(tries),
        "runs_counted": len(counted),
        "settings_differ_between_runs": differ,
        "no_result_by_failure_mode": dict(sorted(by_mode.items())),
    }


def adapt(jobs: str, options: Options) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Read a folder of submissions; return (trial table, adapter.json document).
    Writes nothing. ``options.duplicates`` and ``options.min_tries``: section 16.1."""
    duplicates, min_tries = options.duplicates, options.min_tries
    if duplicates is None or min_tries is None:
        raise AuditError(
            "bad_args", jobs, "tb-run-v1 needs --duplicates (once|as_shipped) and --min-tries"
        )
    rd = Reader(jobs)
    rows, doc = _adapt_entries(jobs, duplicates, min_tries, rd)
    sort_rows(rows)
    sch = schema()
    table = pl.DataFrame(rows, schema=sch) if rows else pl.DataFrame(schema=sch)
    refuse_empty(table, jobs, LOOKED_FOR)
    doc["files"] = rd.files
    doc["skipped"] = skipped_files(jobs, {f["path"] for f in rd.files}, doc)
    return table, doc


def _adapt_entries(
    jobs: str, duplicates: str, min_tries: int, rd: Reader
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Read every entry of ``jobs``; (rows, adapter.json document without files)."""
    if duplicates not in DUPLICATE_RULES:
        raise AuditError(
            "bad_args", jobs, f"--duplicates must be one of {', '.join(DUPLICATE_RULES)}"
        )
    rows: list[dict[str, Any]] = []
    entries: dict[str, Any] = {}
    for entry in rd.subdirs(""):
        runs = _find_runs(rd, entry)
        nested = {r.folder for r in runs if r.nested_in is not None and r.folder is not None}
        content: dict[bytes, str] = {}
        for r in runs:
            raw = (Path(rd.jobs) / r.run_file).read_bytes()
            if raw in content:
                r.duplicate_of = content[raw]
            else:
                content[raw] = r.name
        run_info: dict[str, Any] = {}
        entry_rows: list[dict[str, Any]] = []
        for r in runs:
            dup = r.nested_in is not None or r.duplicate_of is not None
            counted = duplicates == "as_shipped" or not dup
            if not counted:
                run_info[r.name] = {
                    "counted": False,
                    "run_file": r.run_file,
                    "nested_in": r.nested_in,
                    "duplicate_of": r.duplicate_of,
                    "reason": f"duplicate run, counted once (rule {duplicates})",
                }
                continue
            run_rows, info = _run_rows(rd, r, nested)
            info.update({"counted": True, "duplicate_of": r.duplicate_of})
            run_info[r.name] = info
            entry_rows += run_rows
        # copies: one trial id twice in an entry (a duplicate run shipped as is)
        by_id: dict[str, list[dict[str, Any]]] = {}
        for row in sorted(entry_rows, key=lambda x: (x["tb_run"], x["folder"])):
            by_id.setdefault(row["trial_id"], []).append(row)
        for tid, copies in by_id.items():
            for n, row in enumerate(copies):
                row["copy"] = n
                if row["task"] != copies[0]["task"]:
                    raise AuditError(
                        "duplicate_key",
                        rd.where(row["folder"]),
                        f"trial id {tid!r} is task {row['task']!r} here and "
                        f"{copies[0]['task']!r} in {copies[0]['folder']}",
                    )
        first = [x for x in entry_rows if x["copy"] == 0]
        entries[entry] = {
            "runs": run_info,
            "rows": len(entry_rows),
            "copies": sum(1 for x in entry_rows if x["copy"] > 0),
            "statuses": {s: sum(1 for x in first if x["status"] == s) for s in STATUSES},
            "duplicates": sorted(
                n for n, i in run_info.items() if i["nested_in"] or i["duplicate_of"]
            ),
            "board": _board(entry_rows, run_info, min_tries),
        }
        rows += entry_rows
    return rows, {"format": FORMAT, "duplicates_rule": duplicates, "entries": entries}


def skipped_files(jobs: str, read: set[str], doc: dict[str, Any]) -> list[dict[str, str]]:
    """Every regular file under ``jobs`` the adapter did not read, with the reason."""
    dup_dirs = sorted(
        info["run_file"].rsplit("/", 1)[0]
        for e in doc["entries"].values()
        for info in e["runs"].values()
        if not info["counted"]
    )

    def reason(rel: str) -> str:
        if any(rel.startswith(d + "/") for d in dup_dirs):
            return "inside a duplicate run that is counted once (rule once)"
        return "not a file tb-run-v1 reads"

    return unread_files(jobs, read, reason)


def summary_lines(table: pl.DataFrame, doc: dict[str, Any]) -> list[str]:
    """One line per entry and per run, then the skipped files."""
    lines = []
    for entry, e in doc["entries"].items():
        st, b = e["statuses"], e["board"]
        lines.append(
            f"{entry}: {e['rows']} rows ({e['copies']} copies), {b['tasks']} tasks, "
            f"{b['runs_counted']} runs counted; scored {st['scored']}, "
            f"unscored (no result) {st['unscored']}; tries per task "
            f"{b['tries_per_task']['min']}..{b['tries_per_task']['max']}, "
            f"{b['tasks_below_min_tries']} tasks below {b['min_tries']}"
        )
        for name, info in e["runs"].items():
            if not info["counted"]:
                lines.append(f"  {name}: not counted: {info['reason']}")
                continue
            cc = info["crosscheck"]
            lines.append(
                f"  {name}: {info['trials']} trials, {info['trial_files']} trial files; "
                f"accuracy recorded {cc['accuracy_recorded']} recomputed "
                f"{cc['accuracy_recomputed']}; n_resolved {cc['n_resolved_recorded']}/"
                f"{cc['n_resolved_recomputed']}"
                + (f"; nested in {info['nested_in']}" if info["nested_in"] else "")
                + (f"; same bytes as {info['duplicate_of']}" if info["duplicate_of"] else "")
            )
        for s, values in b["settings_differ_between_runs"].items():
            lines.append(
                f"  runs differ in {s}: " + ", ".join(f"{k}={v}" for k, v in values.items())
            )
    lines.append(f"skipped files: {len(doc['skipped'])}")
    reasons: dict[str, int] = {}
    for f in doc["skipped"]:
        reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
    lines += [f"  {n} {r}" for r, n in sorted(reasons.items())]
    return lines


def schema() -> dict[str, Any]:
    return {
        **SCHEMA,
        **{s: pl.String for s in TB_SETTING_NAMES},
        "tb_run": pl.String,
        "attempt": pl.Int64,
        "failure_mode": pl.String,
    }
