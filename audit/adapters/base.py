"""What every adapter shares (docs/trials-contract.md section 2; docs/intake.md).

The trial table's columns and how a recorded value becomes a settings string or a
timestamp; a reader of a jobs directory that records each file it read with its
blake3; the files it did not read; the refusal of an adapter that read no trial; the
bytes a table is written as. A format module imports this module, never another
format's (pyproject.toml, import-linter); ``audit.adapters.formats`` names them all.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters.verifiers import VERIFIER_SCHEMA
from audit.errors import AuditError
from audit.files import read_regular

ABSENT = object()  # a path the record does not hold (not the same as JSON null)

# The settings columns of section 2.3, in the trial table's order. Where a format
# records each is the format's own (harbor.PATHS, terminal_bench.TB_SETTINGS).
SETTING_NAMES = [
    "harness",
    "harness_version",
    "harness_reported",
    "harness_version_reported",
    "model",
    "model_reported",
    "provider_reported",
    "reasoning_effort",
    "reasoning_effort_sent",
    "timeout_multiplier",
    "agent_timeout_sec",
    "agent_setup_timeout_sec",
    "agent_max_timeout_sec",
    "verifier_timeout_sec",
    "verifier_max_timeout_sec",
    "environment",
    "force_build",
    "cpus",
    "memory_mb",
    "task_source",
    "task_checksum",
    "task_git_commit",
]

# The trial table (section 2.2), then the settings.
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
STATUSES = ("errored", "scored", "unscored")


@dataclass(frozen=True)
class Options:
    """What a caller asks of a trial-table adapter; each format reads the options it takes."""

    only: str | None = None  # harbor-trial-v1: read just this run folder of the jobs
    duplicates: str | None = None  # tb-run-v1 (section 16.1): once | as_shipped
    min_tries: int | None = None  # tb-run-v1: the board's minimum tries per task


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


def get_path(obj: Any, steps: list[str]) -> Any:
    """The value at ``steps`` (object keys) inside ``obj``, or ABSENT."""
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


# A job's JSON file is read whole: past this bound it is too_large, never read (the
# samples' largest is 0.7 MB; docs/refusals.md, "Bounds on what is read").
MAX_JOB_FILE = 256 << 20


class Reader:
    """Reads the JSON files of a jobs directory, recording each file read with its blake3."""

    def __init__(self, jobs: str) -> None:
        self.jobs = jobs
        self.files: list[dict[str, str]] = []

    def where(self, rel: str) -> str:
        return str(Path(self.jobs) / rel) if rel else self.jobs

    def read_json(self, rel: str) -> Any:
        import blake3

        # a FIFO or device is refused at once; a file past the bound is too_large, unread
        raw = read_regular(Path(self.jobs) / rel, MAX_JOB_FILE, "too_large")
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
            raw = read_regular(Path(self.jobs) / rel, MAX_JOB_FILE, "too_large")
            return json.loads(raw.decode("utf-8"))
        except (AuditError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
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


def refuse_empty(table: pl.DataFrame, jobs: str, looked_for: str) -> None:
    """Section 2.7: an adapter that reads zero trials refuses."""
    if table.height == 0:
        raise AuditError("no_trials", jobs, f"no trial read; looked for {looked_for}")


def sort_rows(rows: list[dict[str, Any]]) -> None:
    """The trial table's row order: run, task, trial id, copy."""
    rows.sort(key=lambda r: (r["run"], r["task"], r["trial_id"], r["copy"]))


def parquet_bytes(table: pl.DataFrame) -> bytes:
    import io

    buf = io.BytesIO()
    table.write_parquet(buf, compression="zstd", statistics=True)
    return buf.getvalue()
