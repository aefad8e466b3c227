"""Per-task values (contract trials v1, section 6): registry means and trial-selection rules."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .prereg import Policy, Source
from .tables import RegistryRow, TrialRow


@dataclass(frozen=True)
class TaskValue:
    """One (entry, policy, task): counts, mean and pass share (None: no mean).

    Counts that the source does not give are None. `unordered` marks a task an
    earliest/latest rule cannot order; `rounded` a registry mean read from the score."""

    task: str
    copies: int | None
    selected: int | None
    scored: int | None
    errored: int | None
    unscored: int | None
    excluded: int | None
    zeros_added: int | None
    values: int | None
    mean: float | None
    pass_share: float | None
    exact: bool | None
    unordered: bool = False
    rounded: bool = False
    passes: int | None = None  # values equal to 1.0 (trial sources; section 16.5)


def registry_task(row: RegistryRow, source: Source, policy: Policy) -> TaskValue:
    """Section 6.1: the cell's mean under exact_where_possible or rounded_score."""
    n, c = row.trials, row.perfect
    half = Fraction(1, 2 * 10**source.score_decimals)
    exact = (
        policy.registry_means == "exact_where_possible"
        and row.passes == c
        and abs(row.score_exact - source.score_scale * Fraction(c, n)) <= half
    )
    mean = c / n if exact else row.score / float(source.score_scale)
    return TaskValue(
        task=row.task,
        copies=None,
        selected=n,
        scored=None,
        errored=None,
        unscored=None,
        excluded=None,
        zeros_added=None,
        values=n,
        mean=mean,
        pass_share=c / n,
        exact=exact,
        rounded=not exact,
    )


def _selected(rows: list[TrialRow], policy: Policy) -> list[TrialRow] | None:
    """Section 6.2 steps 1 and 2: the selected rows, or None for an unordered task."""
    kept = rows if policy.copies == "keep" else [r for r in rows if r.copy == 0]
    if policy.select == "all":
        return kept
    if any(r.started_at is None for r in kept):
        return None
    ordered = sorted(kept, key=lambda r: (r.started_at, r.trial_id, r.copy))
    assert policy.k is not None
    take = min(policy.k, len(ordered))
    return ordered[:take] if policy.select == "earliest" else ordered[len(ordered) - take :]


def _counts_as_broken(row: TrialRow, policy: Policy) -> bool:
    """Section 6.3: a broken verifier, unless a regrade counts under `reward: regraded`."""
    return row.broken and not (policy.reward == "regraded" and row.regraded is not None)


def trial_task(task: str, rows: list[TrialRow], policy: Policy, dropped: bool = False) -> TaskValue:
    """Sections 6.2 and 6.3: one task of one run under one selection rule.

    `dropped`: the task leaves every entry (broken_verifier: exclude_task_both_sides)."""
    copies = sum(1 for r in rows if r.copy > 0)
    kept = _selected(rows, policy)
    if kept is None:
        return TaskValue(task, copies, *([None] * 10), unordered=True)  # type: ignore[arg-type]
    values: list[float] = []
    counts = {"scored": 0, "errored": 0, "unscored": 0}
    excluded = 0
    for r in kept:
        counts[r.status] += 1
        if dropped:
            excluded += 1
        elif policy.reward == "regraded" and r.regraded is not None:
            values.append(r.regraded)
        elif r.broken:
            if policy.broken_verifier == "as_zero":
                values.append(0.0)
            else:
                excluded += 1
        elif r.status == "scored":
            assert r.reward is not None
            values.append(r.reward)
        elif (policy.errored if r.status == "errored" else policy.unscored) == "zero":
            values.append(0.0)
        else:
            excluded += 1
    passes = sum(1 for v in values if v == 1.0)
    zeros = 0
    if policy.empty_slots == "zero" and not dropped:
        assert policy.slots is not None
        zeros = max(0, policy.slots - len(values))
        values.extend([0.0] * zeros)
    has = bool(values)
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
        mean=math.fsum(values) / len(values) if has else None,
        pass_share=passes / len(values) if has else None,
        exact=True if has else None,
        passes=passes,
    )


def registry_entries(
    rows: list[RegistryRow], source: Source, policy: Policy
) -> dict[str, list[TaskValue]]:
    """Every registry entry's tasks (code-point order) under one policy."""
    out: dict[str, list[TaskValue]] = {}
    for row in rows:
        out.setdefault(row.entry, []).append(registry_task(row, source, policy))
    return {e: sorted(ts, key=lambda t: t.task) for e, ts in out.items()}


def trial_entries(rows: list[TrialRow], policy: Policy) -> dict[str, list[TaskValue]]:
    """Every run's tasks (code-point order) under one selection rule."""
    grouped: dict[str, dict[str, list[TrialRow]]] = {}
    for row in rows:
        grouped.setdefault(row.run, {}).setdefault(row.task, []).append(row)
    dropped: set[str] = set()
    if policy.broken_verifier == "exclude_task_both_sides":
        for tasks in grouped.values():
            for task, task_rows in tasks.items():
                chosen = _selected(task_rows, policy) or []
                if any(_counts_as_broken(r, policy) for r in chosen):
                    dropped.add(task)
    return {
        run: [trial_task(t, tasks[t], policy, t in dropped) for t in sorted(tasks)]
        for run, tasks in grouped.items()
    }
