"""The trial adapter (docs/trials-contract.md section 2): a jobs directory of
Harbor trial folders -> ``trials.parquet`` + ``adapter.json``.

Referee side: one implementation, checked against hand-made folders and the
real sample. Nothing is written unless every file was read without error.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from audit.errors import AuditError
from audit.files import file_blake3, write_atomic
from audit.trials.verifiers import VERIFIER_SCHEMA, run_summary, verifier_fields

FORMAT = "harbor-trial-v1"
ABSENT = object()

# (setting, path): "config.x.y" is read from the trial config C, anything else from R.
SETTINGS: list[tuple[str, str | None]] = [
    ("harness", "config.agent.name"),
    ("harness_version", "config.agent.kwargs.version"),
    ("harness_reported", "agent_info.name"),
    ("harness_version_reported", "agent_info.version"),
    ("model", "config.agent.model_name"),
    ("model_reported", "agent_info.model_info.name"),
    ("provider_reported", "agent_info.model_info.provider"),
    ("reasoning_effort", "config.agent.kwargs.reasoning_effort"),
    ("reasoning_effort_sent", None),
    ("timeout_multiplier", "config.timeout_multiplier"),
    ("agent_timeout_sec", "config.agent.override_timeout_sec"),
    ("agent_setup_timeout_sec", "config.agent.override_setup_timeout_sec"),
    ("agent_max_timeout_sec", "config.agent.max_timeout_sec"),
    ("verifier_timeout_sec", "config.verifier.override_timeout_sec"),
    ("verifier_max_timeout_sec", "config.verifier.max_timeout_sec"),
    ("environment", "config.environment.type"),
    ("force_build", "config.environment.force_build"),
    ("cpus", "config.environment.override_cpus"),
    ("memory_mb", "config.environment.override_memory_mb"),
    ("task_source", "source"),
    ("task_checksum", "task_checksum"),
    ("task_git_commit", "config.task.git_commit_id"),
]
SETTING_NAMES = [s for s, _ in SETTINGS]

SCHEMA: dict[str, Any] = {
    "run": pl.String,
    "task": pl.String,
    "trial_id": pl.String,
    "copy": pl.Int64,
    "folder": pl.String,
    "trial_name": pl.String,
    "job_id": pl.String,
    "status": pl.String,
    "reward": pl.Float64,
    "reward_keys": pl.String,
    "exception": pl.Boolean,
    "error_type": pl.String,
    "verifier_ran": pl.Boolean,
    "started_at": pl.String,
    "started_at_raw": pl.String,
    "finished_at": pl.String,
    "finished_at_raw": pl.String,
    "config_source": pl.String,
    **VERIFIER_SCHEMA,
    **{s: pl.String for s in SETTING_NAMES},
}

_TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$")


def canonical_json(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def encode_setting(v: Any) -> str | None:
    """Section 2.3: absent -> None (not recorded); JSON null -> "null"; else its text."""
    if v is ABSENT:
        return None
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_time(value: Any) -> str | None:
    """Section 2.4: a timestamp with an offset -> 27-character UTC text; anything else None."""
    if not isinstance(value, str) or not _TS.match(value):
        return None
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    if dt.tzinfo is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _get(obj: Any, steps: list[str]) -> Any:
    for step in steps:
        if not isinstance(obj, dict) or step not in obj:
            return ABSENT
        obj = obj[step]
    return obj


def _name_ok(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Reader:
    def __init__(self, jobs: str) -> None:
        self.jobs = jobs
        self.files: list[dict[str, str]] = []

    def where(self, rel: str) -> str:
        return str(Path(self.jobs) / rel) if rel else self.jobs

    def read_json(self, rel: str) -> Any:
        import blake3

        raw = (Path(self.jobs) / rel).read_bytes()
        if raw.startswith(b"\xef\xbb\xbf"):
            raise AuditError("unreadable", self.where(rel), "starts with a byte-order mark")
        try:
            text = raw.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            raise AuditError("unreadable", self.where(rel), f"not UTF-8 ({e.reason})") from None
        try:
            doc = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            msg = e.msg if isinstance(e, json.JSONDecodeError) else "nested too deep"
            raise AuditError("unreadable", self.where(rel), f"not JSON ({msg})") from None
        self.files.append({"path": rel, "blake3": blake3.blake3(raw).hexdigest()})
        return doc

    def peek_json(self, rel: str) -> Any:
        """Parse a JSON file without recording it as read (None if it does not parse)."""
        try:
            return json.loads((Path(self.jobs) / rel).read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            return None

    def subdirs(self, rel: str) -> list[str]:
        base = Path(self.jobs) / rel
        names = sorted(n for n in os.listdir(base) if not n.startswith("."))
        out = []
        for n in names:
            if not (base / n).is_dir():
                continue
            if not _name_ok(n):
                shown = n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                raise AuditError(
                    "bad_name", self.where(f"{rel}/{shown}" if rel else shown), "not valid UTF-8"
                )
            out.append(n)
        return out


def _trial_row(rd: _Reader, run: str, folder: str) -> dict[str, Any]:
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
            try:
                ok = not isinstance(value, bool) and isinstance(value, int | float)
                ok = ok and math.isfinite(float(value))
            except OverflowError:
                ok = False
            if not ok:
                raise AuditError("bad_type", where, f"reward {value!r} is not a finite JSON number")
            reward = float(value)
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
            return encode_setting(_get(C, steps[1:]) if C is not None else ABSENT)
        return encode_setting(_get(R, steps))

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
    evals = _get(job_result, ["stats", "evals"])
    if not isinstance(job_result, dict) or not isinstance(evals, dict):
        return None
    rewards: dict[str, list[float]] = {}
    types: dict[str, list[str]] = {}
    for ev in evals.values():
        rmap = _get(ev, ["reward_stats", "reward"])
        for key, names in rmap.items() if isinstance(rmap, dict) else []:
            for n in names if isinstance(names, list) else []:
                rewards.setdefault(n, []).append(float(key))
        emap = _get(ev, ["exception_stats"])
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


TABLE_FORMAT = "trial-table-v1"  # a trial table an intake adapter wrote (adapt-inspect, adapt-eee)
FORMATS = (FORMAT, "tb-run-v1", TABLE_FORMAT)
LOOKED_FOR = "<run>/<trial>/result.json (Harbor trial folders)"


def adapt(
    jobs: str,
    fmt: str = FORMAT,
    only: str | None = None,
    duplicates: str | None = None,
    min_tries: int | None = None,
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Read a jobs directory; return (trial table, adapter.json document). Writes nothing.

    ``only``: read just this run folder of ``jobs``, as if it were the only run.
    ``duplicates`` and ``min_tries``: the tb-run-v1 rules (section 16.1)."""
    if fmt not in FORMATS:
        raise AuditError("bad_args", jobs, f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    if not Path(jobs).is_dir():
        raise AuditError("missing_file", jobs, "jobs directory does not exist or is not a folder")
    if fmt == TABLE_FORMAT:
        return _adapt_table(jobs)
    if fmt != FORMAT:
        return _adapt_tb(jobs, duplicates, min_tries)
    table, doc = _adapt_harbor(jobs, only)
    _refuse_empty(table, jobs if only is None else str(Path(jobs) / only), LOOKED_FOR)
    doc["skipped"] = unread_files(
        jobs if only is None else str(Path(jobs) / only),
        {f["path"] if only is None else f["path"][len(only) + 1 :] for f in doc["files"]},
        lambda rel: f"not a file {FORMAT} reads",
    )
    return table, doc


def unread_files(jobs: str, read: set[str], reason: Any) -> list[dict[str, str]]:
    """Every regular file under ``jobs`` (walk order) not in ``read``, with reason(path)."""
    out = []
    for base, dirs, files in os.walk(jobs, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_base = os.path.relpath(base, jobs).replace(os.sep, "/")
        for f in sorted(files):
            rel = f if rel_base == "." else f"{rel_base}/{f}"
            if rel not in read and not f.startswith("."):
                out.append({"path": rel, "reason": reason(rel)})
    return out


def _refuse_empty(table: pl.DataFrame, jobs: str, looked_for: str) -> None:
    """Section 2.7: an adapter that reads zero trials refuses."""
    if table.height == 0:
        raise AuditError("no_trials", jobs, f"no trial read; looked for {looked_for}")


def _adapt_table(jobs: str) -> tuple[pl.DataFrame, dict[str, Any]]:
    """A folder holding a trial table already written in this schema (section 2), as
    ``adapt-inspect`` and ``adapt-eee`` write it: read whole, its columns and types
    checked against the schema, its rows put in the adapter's order."""
    path = Path(jobs) / "trials.parquet"
    if not path.is_file():
        raise AuditError("missing_file", str(path), "no trial table in the folder")
    try:
        got = pl.read_parquet_schema(path)
    except Exception as e:  # noqa: BLE001 - any footer failure is one unusable-input line
        raise AuditError("unreadable", str(path), f"not parquet ({type(e).__name__})") from None
    if list(got) != list(SCHEMA):
        missing = [c for c in SCHEMA if c not in got]
        extra = [c for c in got if c not in SCHEMA]
        raise AuditError(
            "bad_type",
            str(path),
            f"not the trial table's columns (missing {missing or 'none'}, "
            f"unknown {extra or 'none'}, or out of order)",
        )
    for name, dtype in SCHEMA.items():
        if got[name] != dtype and got[name] != pl.Null:
            raise AuditError("bad_type", str(path), f"column {name!r} is {got[name]}, not {dtype}")
    try:
        table = pl.read_parquet(path).cast(SCHEMA)
    except Exception as e:  # noqa: BLE001
        raise AuditError("unreadable", str(path), f"a page cannot be read ({type(e).__name__})")
    _refuse_empty(table, jobs, "trials.parquet (the trial table)")
    table = table.sort(["run", "task", "trial_id", "copy"])
    runs: dict[str, Any] = {}
    for row in table.select("run", "status").iter_rows():
        info = runs.setdefault(
            row[0], {"rows": 0, "statuses": dict.fromkeys(("errored", "scored", "unscored"), 0)}
        )
        info["rows"] += 1
        if row[1] in info["statuses"]:
            info["statuses"][row[1]] += 1
    doc = {
        "format": TABLE_FORMAT,
        "files": [{"path": "trials.parquet", "blake3": file_blake3(path)}],
        "runs": runs,
    }
    return table, doc


def _adapt_tb(
    jobs: str, duplicates: str | None, min_tries: int | None
) -> tuple[pl.DataFrame, dict[str, Any]]:
    from audit.adapters import terminal_bench as adapter_tb

    if duplicates is None or min_tries is None:
        raise AuditError(
            "bad_args", jobs, "tb-run-v1 needs --duplicates (once|as_shipped) and --min-tries"
        )
    rd = _Reader(jobs)
    rows, doc = adapter_tb.adapt_tb(jobs, duplicates, min_tries, rd)
    rows.sort(key=lambda r: (r["run"], r["task"], r["trial_id"], r["copy"]))
    sch = adapter_tb.schema()
    table = pl.DataFrame(rows, schema=sch) if rows else pl.DataFrame(schema=sch)
    _refuse_empty(table, jobs, adapter_tb.LOOKED_FOR)
    doc["files"] = rd.files
    doc["skipped"] = adapter_tb.skipped_files(jobs, {f["path"] for f in rd.files}, doc)
    return table, doc


def _adapt_harbor(jobs: str, only: str | None) -> tuple[pl.DataFrame, dict[str, Any]]:
    rd = _Reader(jobs)
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
            "statuses": {
                s: sum(1 for r in first if r["status"] == s)
                for s in ("errored", "scored", "unscored")
            },
            "config_sources": dict(sorted(sources.items())),
            "job_files": info["job_files"],
            "crosscheck": _crosscheck(info["job_result"], info["rows"]),
            "verifiers": run_summary(info["rows"]),
        }
    runs_of: dict[str, set[str]] = {}
    for r in rows:
        runs_of.setdefault(r["trial_id"], set()).add(r["run"])
    rows.sort(key=lambda r: (r["run"], r["task"], r["trial_id"], r["copy"]))
    table = pl.DataFrame(rows, schema=SCHEMA) if rows else pl.DataFrame(schema=SCHEMA)
    doc = {
        "format": FORMAT,
        "files": rd.files,
        "ids_in_several_runs": sum(1 for v in runs_of.values() if len(v) > 1),
        "runs": doc_runs,
    }
    return table, doc


def parquet_bytes(table: pl.DataFrame) -> bytes:
    import io

    buf = io.BytesIO()
    table.write_parquet(buf, compression="zstd", statistics=True)
    return buf.getvalue()


def adapt_to(
    jobs: str,
    out_dir: str,
    fmt: str = FORMAT,
    duplicates: str | None = None,
    min_tries: int | None = None,
) -> tuple[pl.DataFrame, dict[str, Any]]:
    table, doc = adapt(jobs, fmt, duplicates=duplicates, min_tries=min_tries)
    out = Path(out_dir)
    write_atomic(out / "trials.parquet", parquet_bytes(table))
    write_atomic(out / "adapter.json", canonical_json(doc))
    return table, doc


def summary_lines(table: pl.DataFrame, doc: dict[str, Any]) -> list[str]:
    if doc["format"] == TABLE_FORMAT:
        return [
            f"{run}: {info['rows']} rows; scored {info['statuses']['scored']}, errored "
            f"{info['statuses']['errored']}, unscored {info['statuses']['unscored']}"
            for run, info in doc["runs"].items()
        ]
    if doc["format"] != FORMAT:
        from audit.adapters.terminal_bench import summary_lines as tb_lines

        return tb_lines(table, doc)
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
