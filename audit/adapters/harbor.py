"""Harbor trial folders (``harbor-trial-v1``, docs/trials-contract.md section 2): a jobs
directory of Harbor trial folders (BenchFlow's runs in Harbor's layout too) ->
the trial table and ``adapter.json``.

Referee side: one implementation, checked against hand-made folders and the
real sample. Nothing is written unless every file was read without error.
"""

from __future__ import annotations

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
from audit.adapters.verifiers import finite_number, run_summary, verifier_fields
from audit.errors import AuditError

FORMAT = "harbor-trial-v1"
LOOKED_FOR = "<run>/<trial>/result.json (Harbor trial folders)"

# Where a Harbor trial records each setting of section 2.3: "config.x.y" is read from
# the trial config C, anything else from result.json R; None: Harbor records it nowhere.
PATHS: dict[str, str | None] = {
    "harness": "config.agent.name",
    "harness_version": "config.agent.kwargs.version",
    "harness_reported": "agent_info.name",
    "harness_version_reported": "agent_info.version",
    "model": "config.agent.model_name",
    "model_reported": "agent_info.model_info.name",
    "provider_reported": "agent_info.model_info.provider",
    "reasoning_effort": "config.agent.kwargs.reasoning_effort",
    "reasoning_effort_sent": None,
    "timeout_multiplier": "config.timeout_multiplier",
    "agent_timeout_sec": "config.agent.override_timeout_sec",
    "agent_setup_timeout_sec": "config.agent.override_setup_timeout_sec",
    "agent_max_timeout_sec": "config.agent.max_timeout_sec",
    "verifier_timeout_sec": "config.verifier.override_timeout_sec",
    "verifier_max_timeout_sec": "config.verifier.max_timeout_sec",
    "environment": "config.environment.type",
    "force_build": "config.environment.force_build",
    "cpus": "config.environment.override_cpus",
    "memory_mb": "config.environment.override_memory_mb",
    "task_source": "source",
    "task_checksum": "task_checksum",
    "task_git_commit": "config.task.git_commit_id",
}
SETTINGS = [(s, PATHS[s]) for s in SETTING_NAMES]


def _trial_row(rd: Reader, run: str, folder: str) -> dict[str, Any]:
    rel = f"{run}/{folder}"
    res_rel = f"{rel}/result.json"
    R = rd.read_json(res_rel)
    where = rd.where(res_rel)
    if (
        isinstance(R, dict)
        and "verifier_result" not in R
        and "exception_info" not in R
        and "rewards" in R
    ):
        raise AuditError(
            "unknown_format",
            where,
            "top-level rewards and no verifier_result/exception_info: BenchFlow's native format, "
            f"not {FORMAT}",
        )
    if not isinstance(R, dict):
        raise AuditError("bad_trial", where, "result.json is not a JSON object")
    for key in ("id", "task_name"):
        if not isinstance(R.get(key), str) or not R.get(key):
            raise AuditError("bad_trial", where, f"{key} is missing, not a string, or empty")
    for key in ("verifier_result", "exception_info", "config", "agent_info", "verifier"):
        if key in R and R[key] is not None and not isinstance(R[key], dict):
            raise AuditError("bad_trial", where, f"{key} is neither null nor an object")
    vr = R.get("verifier_result")
    rewards = vr.get("rewards", ABSENT) if isinstance(vr, dict) else ABSENT
    if rewards is not ABSENT and rewards is not None and not isinstance(rewards, dict):
        raise AuditError(
            "bad_trial", where, "verifier_result.rewards is neither null nor an object"
        )
    for key in ("started_at", "finished_at"):
        if key in R and R[key] is not None and not isinstance(R[key], str):
            raise AuditError("bad_trial", where, f"{key} is neither a string nor null")
    reward = None
    if isinstance(rewards, dict):
        value = rewards.get("reward")
        if value is not None:
            reward = finite_number(value, where, "reward")
    # The sibling config.json is read after result.json's own checks (walk order).
    cfg_path = Path(rd.jobs) / rel / "config.json"
    sibling = rd.read_json(f"{rel}/config.json") if cfg_path.is_file() else ABSENT
    if sibling is not ABSENT and not isinstance(sibling, dict):
        raise AuditError(
            "bad_trial", rd.where(f"{rel}/config.json"), "config.json is not an object"
        )
    exc = R.get("exception_info")
    exception = isinstance(exc, dict)
    verifier_ran = isinstance(R.get("verifier"), dict)
    if reward is not None:
        status = "scored"
    elif exception and not verifier_ran:
        status = "errored"
    else:
        status = "unscored"
    rc = R.get("config")
    if isinstance(rc, dict):
        C: Any = rc
        source = (
            "result" if sibling is ABSENT else ("both_equal" if rc == sibling else "both_differ")
        )
    elif sibling is not ABSENT:
        C, source = sibling, "config_json"
    else:
        C, source = None, "none"

    def setting(path: str | None) -> str | None:
        if path is None:
            return None
        steps = path.split(".")
        if steps[0] == "config":
            return encode_setting(get_path(C, steps[1:]) if C is not None else ABSENT)
        return encode_setting(get_path(R, steps))

    started, finished = R.get("started_at"), R.get("finished_at")
    row = {
        "run": run,
        "task": R["task_name"],
        "trial_id": R["id"],
        "copy": 0,
        "folder": rel,
        "trial_name": R["trial_name"] if isinstance(R.get("trial_name"), str) else None,
        "job_id": setting("config.job_id"),
        "status": status,
        "reward": reward,
        "reward_keys": ",".join(sorted(rewards)) if isinstance(rewards, dict) else None,
        "exception": exception,
        "error_type": exc["exception_type"]
        if exception and isinstance(exc.get("exception_type"), str)
        else None,
        "verifier_ran": verifier_ran,
        "started_at": canonical_time(started),
        "started_at_raw": started if isinstance(started, str) else None,
        "finished_at": canonical_time(finished),
        "finished_at_raw": finished if isinstance(finished, str) else None,
        "config_source": source,
    }
    row.update(verifier_fields(rd.read_json, rd.jobs, rel, R))
    for name, path in SETTINGS:
        row[name] = setting(path)
    return row


def _crosscheck(job_result: Any, rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    evals = get_path(job_result, ["stats", "evals"])
    if not isinstance(job_result, dict) or not isinstance(evals, dict):
        return None
    rewards: dict[str, list[float]] = {}
    types: dict[str, list[str]] = {}
    for ev in evals.values():
        rmap = get_path(ev, ["reward_stats", "reward"])
        for key, names in rmap.items() if isinstance(rmap, dict) else []:
            for n in names if isinstance(names, list) else []:
                rewards.setdefault(n, []).append(float(key))
        emap = get_path(ev, ["exception_stats"])
        for key, names in emap.items() if isinstance(emap, dict) else []:
            for n in names if isinstance(names, list) else []:
                types.setdefault(n, []).append(key)
    agree, disagree, not_listed = 0, [], []
    present = set()
    for r in rows:
        if r["copy"] != 0 or r["trial_name"] is None:
            continue
        name = r["trial_name"]
        present.add(name)
        if name not in rewards and name not in types:
            not_listed.append(name)
            continue
        want_r = [] if r["reward"] is None else [r["reward"]]
        want_t = [] if r["error_type"] is None else [r["error_type"]]
        if sorted(rewards.get(name, [])) == want_r and sorted(types.get(name, [])) == want_t:
            agree += 1
        else:
            disagree.append(name)
    listed = set(rewards) | set(types)
    return {
        "agree": agree,
        "disagree": sorted(disagree),
        "not_listed": sorted(not_listed),
        "listed_absent": len(listed - present),
    }


def adapt(jobs: str, options: Options) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Read a jobs directory; return (trial table, adapter.json document). Writes nothing.

    ``options.only``: read just this run folder of ``jobs``, as if it were the only run."""
    only = options.only
    table, doc = _adapt_harbor(jobs, only)
    refuse_empty(table, jobs if only is None else str(Path(jobs) / only), LOOKED_FOR)
    doc["skipped"] = unread_files(
        jobs if only is None else str(Path(jobs) / only),
        {f["path"] if only is None else f["path"][len(only) + 1 :] for f in doc["files"]},
        lambda rel: f"not a file {FORMAT} reads",
    )
    return table, doc


def _adapt_harbor(jobs: str, only: str | None) -> tuple[pl.DataFrame, dict[str, Any]]:
    rd = Reader(jobs)
    rows: list[dict[str, Any]] = []
    runs: dict[str, dict[str, Any]] = {}
    for run in rd.subdirs("") if only is None else [only]:
        job_files = {}
        job_result: Any = None
        for name in ("result.json", "config.json"):
            present = (Path(jobs) / run / name).is_file()
            job_files[name] = present
            if present:
                doc = rd.read_json(f"{run}/{name}")
                if name == "result.json":
                    job_result = doc
        folders = rd.subdirs(run)
        run_rows, no_result = [], []
        for folder in folders:
            if (Path(jobs) / run / folder / "result.json").is_file():
                run_rows.append(_trial_row(rd, run, folder))
            else:
                no_result.append(f"{run}/{folder}")
        runs[run] = {
            "folders": len(folders),
            "rows": run_rows,
            "no_result": no_result,
            "job_files": job_files,
            "job_result": job_result,
        }
        rows += run_rows
    doc_runs: dict[str, Any] = {}
    for run, info in runs.items():
        by_id: dict[str, list[dict[str, Any]]] = {}
        for r in sorted(info["rows"], key=lambda r: r["folder"]):
            by_id.setdefault(r["trial_id"], []).append(r)
        conflicting = []
        for tid, copies in by_id.items():
            for n, r in enumerate(copies):
                r["copy"] = n
                if r["task"] != copies[0]["task"]:
                    raise AuditError(
                        "duplicate_key",
                        rd.where(f"{r['folder']}/result.json"),
                        f"trial id {tid!r} is task {r['task']!r} here and "
                        f"{copies[0]['task']!r} in {copies[0]['folder']}",
                    )
            if len({(r["status"], r["reward"], r["started_at"]) for r in copies}) > 1:
                conflicting.append(tid)
        first = [r for r in info["rows"] if r["copy"] == 0]
        sources: dict[str, int] = {}
        for r in first:
            sources[r["config_source"]] = sources.get(r["config_source"], 0) + 1
        doc_runs[run] = {
            "trial_folders": info["folders"],
            "rows": len(info["rows"]),
            "copies": sum(1 for r in info["rows"] if r["copy"] > 0),
            "conflicting_copies": sorted(conflicting),
            "no_result": sorted(info["no_result"]),
            "statuses": {s: sum(1 for r in first if r["status"] == s) for s in STATUSES},
            "config_sources": dict(sorted(sources.items())),
            "job_files": info["job_files"],
            "crosscheck": _crosscheck(info["job_result"], info["rows"]),
            "verifiers": run_summary(info["rows"]),
        }
    runs_of: dict[str, set[str]] = {}
    for r in rows:
        runs_of.setdefault(r["trial_id"], set()).add(r["run"])
    sort_rows(rows)
    table = pl.DataFrame(rows, schema=SCHEMA) if rows else pl.DataFrame(schema=SCHEMA)
    doc = {
        "format": FORMAT,
        "files": rd.files,
        "ids_in_several_runs": sum(1 for v in runs_of.values() if len(v) > 1),
        "runs": doc_runs,
    }
    return table, doc


def summary_lines(table: pl.DataFrame, doc: dict[str, Any]) -> list[str]:
    lines = []
    for run, info in doc["runs"].items():
        st = info["statuses"]
        tasks = table.filter(pl.col("run") == run)["task"].n_unique()
        lines.append(
            f"{run}: {info['rows']} rows ({info['copies']} copies), {tasks} tasks; "
            f"scored {st['scored']}, errored {st['errored']}, unscored {st['unscored']}; "
            f"no result.json: {len(info['no_result'])}; "
            f"broken verifiers {len(info['verifiers']['broken'])}, "
            f"regraded {info['verifiers']['regraded']}"
        )
    return lines
