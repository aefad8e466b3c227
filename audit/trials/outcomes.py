"""Trial outcome classes and the broken-verifier / reward policies
(docs/trials-contract.md section 11.5). Referee side: compare-runs and metrics
decide every trial's class and value here, and nowhere else.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from audit.errors import AuditError

CLASSES = [
    "passed",
    "failed",
    "unscored",
    "broken_verifier",
    "agent_error",
    "infrastructure_error",
    "control_run",
]
REWARD_POLICIES = ["original", "regraded"]
BROKEN_POLICIES = ["as_zero", "exclude_task_both_sides", "exclude_trial"]
DENOMINATORS = ["attempted", "scored"]

# Declared per harness format: which agent names make a control run, and which recorded
# field tells an infrastructure error from an agent error (an errored trial whose agent
# never started executing failed in the harness: environment or agent setup).
HARNESS_RULES: dict[str, dict[str, Any]] = {
    "harbor-trial-v1": {
        "control_agents": ("oracle", "nop"),
        "control_setting": "harness",
        "agent_started": "agent_ran",
    },
}


def check_policies(reward: str, broken: str, denominator: str) -> None:
    for value, allowed, flag in (
        (reward, REWARD_POLICIES, "--reward"),
        (broken, BROKEN_POLICIES, "--broken"),
        (denominator, DENOMINATORS, "--denominator"),
    ):
        if value not in allowed:
            raise AuditError(
                "bad_args", "compare-runs", f"{flag} must be one of {', '.join(allowed)}"
            )


def is_control(row: dict[str, Any], fmt: str = "harbor-trial-v1") -> bool:
    rule = HARNESS_RULES[fmt]
    return row.get(rule["control_setting"]) in rule["control_agents"]


def classify(row: dict[str, Any], reward: str, fmt: str = "harbor-trial-v1") -> str:
    """One class of CLASSES for a copy-0 trial row, under reward policy ``reward``.

    First match wins: control run; broken verifier (unless regraded under ``regraded``);
    errored -> infrastructure or agent error; unscored; passed (value 1) or failed."""
    rule = HARNESS_RULES[fmt]
    if is_control(row, fmt):
        return "control_run"
    regrade = row.get("reward_regraded") if reward == "regraded" else None
    if regrade is not None:
        return "passed" if regrade == 1.0 else "failed"
    if row.get("verifier_broken"):
        return "broken_verifier"
    if row["status"] == "errored":
        return "agent_error" if row.get(rule["agent_started"]) else "infrastructure_error"
    if row["status"] == "unscored":
        return "unscored"
    return "passed" if row["reward"] == 1.0 else "failed"


def value(row: dict[str, Any], cls: str, reward: str, denominator: str, broken: str):
    """The trial's exact value, or None when it is left out (the task-level part of
    ``exclude_task_both_sides`` is applied by the caller)."""
    if cls == "control_run":
        return None
    if cls == "broken_verifier":
        return Fraction(0) if broken == "as_zero" else None
    if cls in ("passed", "failed"):
        regrade = row.get("reward_regraded") if reward == "regraded" else None
        x = regrade if regrade is not None else row["reward"]
        return Fraction(repr(float(x)))
    return Fraction(0) if denominator == "attempted" else None


def class_counts(classes: list[str]) -> dict[str, int]:
    return {c: sum(1 for x in classes if x == c) for c in CLASSES}
