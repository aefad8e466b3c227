"""Broken verifiers and regrades as a trial folder records them
(docs/trials-contract.md section 2.7). Referee side; the adapter calls
:func:`verifier_fields` once per trial, after the trial's own files.

- A **broken verifier**: ``result.json`` carries a warning whose text starts with
  ``Verifier scored 0:`` (BenchFlow's mark for a test script that crashed, timed out,
  or wrote a reward that is not a number or is out of range). The reason is read from
  the rest of the text.
- A **regrade**: a ``regrade.json`` beside ``result.json`` holds the rescored reward at
  ``rewards.reward``; ``result.json`` keeps the original.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl

from audit.errors import AuditError

WARNING_PREFIX = "Verifier scored 0:"
# (reason, phrases): the first reason one of whose phrases the warning's text holds.
REASONS: list[tuple[str, tuple[str, ...]]] = [
    ("timed_out", ("timed out", "timeout", "time out")),
    ("crashed", ("crash",)),
    ("non_numeric", ("non-numeric", "non numeric", "not numeric", "not a number")),
    ("out_of_range", ("out of range", "out-of-range", "outside")),
]
REASON_NAMES = [r for r, _ in REASONS] + ["other"]

# Inserted after config_source, before the settings (section 2.2's table, last rows).
VERIFIER_SCHEMA: dict[str, Any] = {
    "agent_ran": pl.Boolean,
    "verifier_broken": pl.Boolean,
    "verifier_broken_reason": pl.String,
    "reward_regraded": pl.Float64,
}


def broken_reason(text: str) -> str:
    rest = text[len(WARNING_PREFIX) :].lower()
    for reason, phrases in REASONS:
        if any(p in rest for p in phrases):
            return reason
    return "other"


def _warning_texts(R: dict[str, Any], where: str) -> list[str]:
    w = R.get("warnings")
    if w is None:
        return []
    if not isinstance(w, list):
        raise AuditError("bad_trial", where, "warnings is neither null nor a list")
    out = []
    for item in w:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict) and isinstance(item.get("message"), str):
            out.append(item["message"])
    return out


def finite_number(value: Any, where: str, what: str) -> float:
    """A JSON number that is finite (not a bool), as a float; else ``bad_type``."""
    try:
        ok = not isinstance(value, bool) and isinstance(value, int | float)
        ok = ok and math.isfinite(float(value))
    except OverflowError:
        ok = False
    if not ok:
        raise AuditError("bad_type", where, f"{what} {value!r} is not a finite JSON number")
    return float(value)


def verifier_fields(read_json: Any, jobs: str, rel: str, R: dict[str, Any]) -> dict[str, Any]:
    """The four columns of VERIFIER_SCHEMA for the trial folder ``rel`` (result.json = R).

    ``read_json(rel_path)`` reads and hashes a file the way the adapter does."""
    where = str(Path(jobs) / rel / "result.json")
    broken = [t for t in _warning_texts(R, where) if t.startswith(WARNING_PREFIX)]
    regraded = None
    if (Path(jobs) / rel / "regrade.json").is_file():
        g_rel = f"{rel}/regrade.json"
        g_where = str(Path(jobs) / g_rel)
        G = read_json(g_rel)
        rewards = G.get("rewards") if isinstance(G, dict) else None
        if not isinstance(rewards, dict) or rewards.get("reward") is None:
            raise AuditError("bad_trial", g_where, "regrade.json has no rewards.reward")
        regraded = finite_number(rewards["reward"], g_where, "regraded reward")
    return {
        "agent_ran": isinstance(R.get("agent_execution"), dict),
        "verifier_broken": bool(broken),
        "verifier_broken_reason": broken_reason(broken[0]) if broken else None,
        "reward_regraded": regraded,
    }


def run_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """adapter.json's ``verifiers`` block of one run (copy-0 rows)."""
    first = [r for r in rows if r["copy"] == 0]
    broken = sorted(
        (r["task"], r["trial_id"], r["verifier_broken_reason"])
        for r in first
        if r["verifier_broken"]
    )
    return {
        "broken": [{"task": t, "trial_id": i, "reason": why} for t, i, why in broken],
        "regraded": sum(1 for r in first if r["reward_regraded"] is not None),
    }
