"""Per-task values under a policy (section 6): registry means and trial-selection rules."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..prereg.trials import Policy, Source
from .tables import RegistryCell, TrialRow


@dataclass(frozen=True)
class TaskValue:
    """One (entry, policy, task): counts, then the mean and pass share if the task has values.

    Counts a source does not know are None (written empty).
    """

    task: str
    copies: int | None
    unordered: bool = False
    selected: int | None = None
    scored: int | None = None
    errored: int | None = None
    unscored: int | None = None
    excluded: int | None = None
    zeros_added: int | None = None
    values: int | None = None
    mean: float | None = None
    pass_share: float | None = None
    exact: bool | None = None  # reward_exact; None when the task has no mean
    successes: int | None = None  # values equal to 1.0, an added zero not one (16.5)


def registry_task(cell: RegistryCell, policy: Policy, src: Source) -> TaskValue:
    """Section 6.1: the cell's mean under exact_where_possible or rounded_score."""
    n, c = cell.trials, cell.perfect
    share = float(c) / float(n)
    exact = False
    if policy.registry_means == "exact_where_possible" and cell.passes == c:
        half = Fraction(1, 2) / Fraction(10) ** src.score_decimals
        exact = abs(cell.score_exact - Fraction(src.score_scale) * Fraction(c, n)) <= half
    mean = float(c) / float(n) if exact else cell.score / float(src.score_scale)
    return TaskValue(
        task=cell.task,
        copies=None,
        selected=n,
        values=n,
        mean=mean,
        pass_share=share,
        exact=exact,
    )


def _order_key(row: TrialRow) -> tuple[str, str, int]:
    assert row.started_at is not None
    return (row.started_at, row.trial_id, row.copy)


def pick(rows: list[TrialRow], policy: Policy) -> list[TrialRow] | None:
    """Section 6.2 steps 1-2: the selected rows; None when the task cannot be ordered."""
    kept = rows if policy.copies == "keep" else [r for r in rows if r.copy == 0]
    if policy.select == "all":
        return kept
    if any(r.started_at is None for r in kept):
        return None
    kept = sorted(kept, key=_order_key)
    assert policy.k is not None
    k = min(policy.k, len(kept))
    return kept[:k] if policy.select == "earliest" else kept[len(kept) - k :]


def _regrade(row: TrialRow, policy: Policy) -> float | None:
    return row.reward_regraded if policy.reward == "regraded" else None


def row_value(row: TrialRow, policy: Policy) -> float | None:
    """Section 6.3 before 6.2 step 3: a row's value under the policy, None if excluded.
    The per-task values (trial_task) and the run-level values (overruns) both use it."""
    regrade = _regrade(row, policy)
    if regrade is not None:
        return regrade
    if row.verifier_broken:
        return 0.0 if policy.broken_verifier == "as_zero" else None
    if row.status == "scored":
        assert row.reward is not None
        return row.reward
    rule = policy.errored if row.status == "errored" else policy.unscored
    return 0.0 if rule == "zero" else None


def tasks_left_by_broken_verifiers(
    entries: dict[str, dict[str, list[TrialRow]]], policy: Policy
) -> frozenset[str]:
    """exclude_task_both_sides: tasks with a selected, unregraded broken-verifier trial in
    any entry; they leave every entry."""
    if policy.broken_verifier != "exclude_task_both_sides":
        return frozenset()
    return frozenset(
        task
        for by_task in entries.values()
        for task, rows in by_task.items()
        if any(r.verifier_broken and _regrade(r, policy) is None for r in pick(rows, policy) or [])
    )


def trial_task(task: str, rows: list[TrialRow], policy: Policy, leaves: bool = False) -> TaskValue:
    """Section 6.2, steps 1 to 5 (with 6.3), for the rows of one (run, task).

    ``leaves``: the task is one of ``tasks_left_by_broken_verifiers``."""
    copies = sum(1 for r in rows if r.copy > 0)
    kept = pick(rows, policy)
    if kept is None:
        return TaskValue(task=task, copies=copies, unordered=True)
    counts = {s: sum(1 for r in kept if r.status == s) for s in ("scored", "errored", "unscored")}
    picked = [] if leaves else [row_value(r, policy) for r in kept]
    values = [v for v in picked if v is not None]
    excluded = len(kept) - len(values)
    zeros = 0
    if policy.empty_slots == "zero" and not leaves:
        assert policy.slots is not None
        zeros = max(0, policy.slots - len(values))
        values.extend([0.0] * zeros)
    mean: float | None = None
    share: float | None = None
    if values:
        mean = math.fsum(values) / len(values)
        share = float(sum(1 for v in values if v == 1.0)) / float(len(values))
    return TaskValue(
        task=task,
        copies=copies,
        selected=len(kept),
        scored=counts["scored"],
        errored=counts["errored"],
        unscored=counts["unscored"],
        excluded=excluded,
        zeros_added=zeros,
        values=len(values),
        mean=mean,
        pass_share=share,
        exact=True if values else None,
        successes=sum(1 for v in values if v == 1.0),
    )


def registry_entries(cells: list[RegistryCell]) -> dict[str, list[RegistryCell]]:
    """Entry id -> its cells, tasks in code-point order."""
    out: dict[str, list[RegistryCell]] = {}
    for c in cells:
        out.setdefault(c.entry, []).append(c)
    for v in out.values():
        v.sort(key=lambda c: c.task)
    return out


def trial_entries(rows: list[TrialRow]) -> dict[str, dict[str, list[TrialRow]]]:
    """Run -> task -> rows (every copy); tasks are those with at least one row of the run."""
    out: dict[str, dict[str, list[TrialRow]]] = {}
    for r in rows:
        out.setdefault(r.run, {}).setdefault(r.task, []).append(r)
    return {run: dict(sorted(tasks.items())) for run, tasks in out.items()}
