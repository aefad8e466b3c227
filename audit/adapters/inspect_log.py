"""Inspect eval logs (``.eval`` and ``.json``) read with inspect_ai's own ``read_eval_log``.

``python -m audit adapt-inspect LOG... --out DIR [--scorer NAME]`` writes

- ``trials.parquet``: the trial table of trials v1 (docs/trials-contract.md, section 2),
  one row per sample and epoch: ``run`` is ``<model>/<eval_id>``, ``task`` the sample
  id, ``trial_id`` ``<eval_id>/<sample id>/<epoch>``; ``reward`` the declared scorer's
  value as inspect_ai itself turns it into a number (``value_to_float``: C 1, I 0, P 0.5,
  N 0); ``status`` ``scored`` when there is one, ``errored`` when the sample records an
  error, else ``unscored``. Fields Inspect does not record (timings of a verifier,
  Harbor's settings) are null;
- ``items.parquet``: the per-item record ``compare-items`` reads, one row per sample
  and epoch: ``item_id`` (the sample id, with ``:<epoch>`` when the log ran more than
  one), ``run``, ``epoch``, ``input`` (the sample's input: text, or its messages as
  JSON), ``prompt`` (the messages sent before the first reply, as JSON), ``output`` (the
  completion), ``answer`` (the scorer's extracted answer), ``score`` (the number above),
  ``target``;
- ``claim.json``: each log's published claim, its header's metrics per scorer
  (accuracy, stderr, ...) with the samples counted, and the file's blake3.

- ``leaderboard.parquet``: the published claim, one row per log keyed by ``run`` (the
  trial rows join it by the same column): the header's task, model, scorer, status,
  total and completed samples, the rows written, and each metric of the taken scorer.

One scorer is taken: ``--scorer``, or the only one a log has; several without
``--scorer`` is ``ambiguous_scorer``, none at all (no scorer ran) ``unscored``. A log
that cannot be read is ``unreadable``, one with no sample ``empty``, a sample id
repeated within an epoch ``duplicate_key``. In a batch, a log that cannot be read
(``missing_file``, ``unreadable``) is listed with its reason and skipped, unless
``--all-or-nothing``; a log holding fewer samples than its header counts completed is
a finding printed with both counts (``claim.json``, ``finding``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters import intake_out
from audit.adapters.base import SCHEMA as TRIAL_SCHEMA
from audit.errors import AuditError
from audit.files import file_blake3

FORMAT = "inspect-eval-log"
# Bounds on what a log may make the reader hold (docs/intake.md): an .eval log is a zip
# whose members inspect_ai inflates whole, a .json log is read whole.
MAX_MEMBER = 256 << 20  # one member, inflated
MAX_INFLATED = 1 << 30  # every member of one log, inflated
MAX_RATIO = 100  # inflated / compressed, for a member over RATIO_FROM bytes
RATIO_FROM = 1 << 20
MAX_JSON_LOG = 1 << 30


def _bounded(path: str) -> None:
    """Refuse (too_large) a log past the bounds before inspect_ai reads it. A zip's
    members are judged by the sizes its directory declares: Python's zipfile, which
    inspect_ai reads through, stops inflating a member at its declared size."""
    import stat
    import zipfile

    st = Path(path).stat()
    if not stat.S_ISREG(st.st_mode):
        raise AuditError("unreadable", path, "not a regular file (a FIFO, device or folder)")
    if not zipfile.is_zipfile(path):
        if st.st_size > MAX_JSON_LOG:
            raise AuditError("too_large", path, f"{st.st_size} bytes, more than {MAX_JSON_LOG}")
        return
    try:
        with zipfile.ZipFile(path) as z:
            members = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise AuditError("unreadable", path, f"not a readable .eval archive ({e})") from None
    total = 0
    for m in members:
        total += m.file_size
        ratio = m.file_size / max(m.compress_size, 1)
        if m.file_size > MAX_MEMBER or (m.file_size > RATIO_FROM and ratio > MAX_RATIO):
            raise AuditError(
                "too_large",
                path,
                f"member {m.filename[:80]!r} inflates to {m.file_size} bytes from"
                f" {m.compress_size} (at most {MAX_MEMBER} bytes, and {MAX_RATIO} times its"
                f" compressed size past {RATIO_FROM})",
            )
        if total > MAX_INFLATED:
            raise AuditError(
                "too_large", path, f"its members inflate to more than {MAX_INFLATED} bytes"
            )


def _read(path: str) -> Any:
    from inspect_ai.log import read_eval_log

    if not Path(path).exists():
        raise AuditError("missing_file", path, "no such file")
    _bounded(path)
    try:
        return read_eval_log(path)
    except Exception as e:  # noqa: BLE001 - any reader failure is one unusable-input line
        raise AuditError(
            "unreadable", path, f"not an Inspect eval log ({type(e).__name__})"
        ) from None


def _scorer(log: Any, wanted: str | None, path: str) -> str:
    names = [s.name for s in (log.results.scores if log.results else [])]
    if not names:
        raise AuditError("unscored", path, "no scorer ran: the log holds no score to read")
    if wanted is not None:
        if wanted not in names:
            raise AuditError("missing_scorer", path, f"no scorer {wanted!r} (has {names})")
        return wanted
    if len(names) != 1:
        raise AuditError(
            "ambiguous_scorer", path, f"scorers {names}: name the one to read with --scorer"
        )
    return names[0]


def _messages(msgs: list[Any]) -> str:
    return json.dumps([{"role": m.role, "content": m.text} for m in msgs], ensure_ascii=False)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return json.dumps(value, ensure_ascii=False)
    return _messages(value)


def read(path: str, scorer: str | None) -> tuple[list[dict], list[dict], dict[str, Any]]:
    """(trial rows, item rows, claim) of one log."""
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    log = _read(path)
    samples = log.samples or []
    if not samples:
        raise AuditError("empty", path, "the log holds no sample")
    name = _scorer(log, scorer, path)
    run = f"{log.eval.model}/{log.eval.eval_id}"
    many_epochs = len({s.epoch for s in samples}) > 1
    trials: list[dict] = []
    items: list[dict] = []
    seen: set[tuple[str, int]] = set()
    for s in samples:
        key = (str(s.id), int(s.epoch))
        if key in seen:
            raise AuditError("duplicate_key", path, f"sample {key[0]} epoch {key[1]} twice")
        seen.add(key)
        score = (s.scores or {}).get(name)
        reward = None if score is None or score.value is None else float(to_float(score.value))
        status = "scored" if reward is not None else "errored" if s.error else "unscored"
        first_reply = next((i for i, m in enumerate(s.messages) if m.role == "assistant"), None)
        trials.append(
            {
                **dict.fromkeys(TRIAL_SCHEMA),
                "run": run,
                "task": key[0],
                "trial_id": f"{log.eval.eval_id}/{key[0]}/{key[1]}",
                "copy": 0,
                "folder": f"{Path(path).name}#{key[0]}:{key[1]}",
                "status": status,
                "reward": reward,
                "reward_keys": ",".join(sorted(s.scores or {})) or None,
                "exception": s.error is not None,
                "verifier_ran": bool(s.scores),
                "config_source": "none",
                # the format records no verifier warning: none is flagged broken
                "verifier_broken": False,
            }
        )
        items.append(
            {
                "item_id": f"{key[0]}:{key[1]}" if many_epochs else key[0],
                "run": run,
                "epoch": key[1],
                "input": _text(s.input),
                "prompt": None if first_reply is None else _messages(s.messages[:first_reply]),
                "output": s.output.completion if s.output else None,
                "answer": None if score is None else score.answer,
                "score": reward,
                "target": _text(s.target),
            }
        )
    claimed = log.results.completed_samples
    claim = {
        "rows": len(trials),
        "finding": (
            None
            if claimed is None or claimed <= len(trials)
            else f"the header counts {claimed} completed sample(s); the log holds {len(trials)}"
        ),
        "file": Path(path).name,
        "blake3": file_blake3(path),
        "run": run,
        "task": log.eval.task,
        "model": log.eval.model,
        "status": log.status,
        "scorer": name,
        "total_samples": log.results.total_samples,
        "completed_samples": log.results.completed_samples,
        "metrics": {
            s.name: {k: m.value for k, m in sorted(s.metrics.items())} for s in log.results.scores
        },
    }
    return trials, items, claim


KEYS = {
    "run": pl.String,
    "task": pl.String,
    "model": pl.String,
    "scorer": pl.String,
    "log_status": pl.String,
    "total_samples": pl.Int64,
    "completed_samples": pl.Int64,
    "rows_written": pl.Int64,
}


def leaderboard(claims: list[dict[str, Any]], path: str) -> pl.DataFrame:
    """The published claim, one row per log keyed by ``run`` (the trials' run): the
    header's counts and the taken scorer's metrics, one column each."""
    metrics: dict[str, None] = {}
    for c in claims:
        for m in c["metrics"][c["scorer"]]:
            if m in KEYS:
                raise AuditError("bad_log", path, f"a metric named {m!r}, a column of the claim")
            metrics.setdefault(m, None)
    rows = [
        {
            "run": c["run"],
            "task": c["task"],
            "model": c["model"],
            "scorer": c["scorer"],
            "log_status": c["status"],
            "total_samples": c["total_samples"],
            "completed_samples": c["completed_samples"],
            "rows_written": c["rows"],
        }
        | {
            m: None if (v := c["metrics"][c["scorer"]].get(m)) is None else float(v)
            for m in metrics
        }
        for c in claims
    ]
    return pl.DataFrame(rows, schema=KEYS | dict.fromkeys(metrics, pl.Float64))


def adapt_to(
    logs: list[str], out: str, scorer: str | None = None, all_or_nothing: bool = False
) -> dict[str, Any]:
    read_logs, skipped = intake_out.batch(logs, lambda p: read(p, scorer), all_or_nothing)
    trials: list[dict] = []
    items: list[dict] = []
    claims: list[dict] = []
    for path, (t, i, c) in read_logs:
        if any(x["run"] == c["run"] for x in claims):
            raise AuditError("duplicate_key", path, f"a second log of run {c['run']}")
        trials += t
        items += i
        claims.append(c)
    doc = {"format": FORMAT, "logs": claims, "skipped": skipped, "key": "run"}
    return intake_out.write(out, trials, items, doc, leaderboard(claims, logs[0]))


def summary_lines(doc: dict[str, Any]) -> list[str]:
    lines = [
        f"adapt-inspect: {len(doc['logs'])} log(s), "
        f"{sum(c['rows'] for c in doc['logs'])} trial row(s) written"
    ]
    for c in doc["logs"]:
        metrics = ", ".join(f"{k} {v}" for k, v in c["metrics"][c["scorer"]].items())
        lines.append(
            f"  {c['run']}: {c['rows']} row(s) written, the header counts "
            f"{c['completed_samples']} completed; {c['scorer']}: {metrics}"
        )
        if c["finding"]:
            lines.append(f"  FINDING {c['run']}: {c['finding']}")
    return lines + intake_out.skipped_lines(doc["skipped"])
