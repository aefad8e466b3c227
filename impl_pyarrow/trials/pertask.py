"""Per-task values under a policy (section 6): registry means and trial-selection rules."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .spec import Policy, Source
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


def trial_task(task: str, rows: list[TrialRow], policy: Policy) -> TaskValue:
    """Section 6.2, steps 1 to 5, for the rows of one (run, task)."""
    copies = sum(1 for r in rows if r.copy > 0)
    kept = rows if policy.copies == "keep" else [r for r in rows if r.copy == 0]
    if policy.select != "all":
        if any(r.started_at is None for r in kept):
            return TaskValue(task=task, copies=copies, unordered=True)
        kept = sorted(kept, key=_order_key)
        assert policy.k is not None
        k = min(policy.k, len(kept))
        kept = kept[:k] if policy.select == "earliest" else kept[len(kept) - k :]
    values: list[float] = []
    counts = {"scored": 0, "errored": 0, "unscored": 0}
    excluded = 0
    for r in kept:
        counts[r.status] += 1
        if r.status == "scored":
            assert r.reward is not None
            values.append(r.reward)
        elif (policy.errored if r.status == "errored" else policy.unscored) == "zero":
            values.append(0.0)
        else:
            excluded += 1
    zeros = 0
    if policy.empty_slots == "zero":
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
