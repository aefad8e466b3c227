"""The controls' own reading of trials v1, sections 6.2, 6.3 and 7.1, in exact rationals.

Shares nothing with either contestant: the rows are plain dicts (read by
polars), the arithmetic is ``fractions.Fraction``. It computes only what a
trial control predicts: per (run, policy), the tasks that have a mean, the
task-macro reward and pass share (times the prereg's scale), or no data.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import polars as pl

from audit.trials.record import Policy

Row = dict  # one trial row: run, task, trial_id, copy, status, reward, started_at, ...
COLUMNS = ["run", "task", "trial_id", "copy", "folder", "status", "reward", "started_at"]
OPTIONAL = ["verifier_broken", "reward_regraded"]  # section 6.3; absent: none


class Unpredictable(Exception):
    """A policy this reading does not model (it then refuses to predict)."""


@dataclass(frozen=True)
class Entry:
    """One (run, policy): None for no data."""

    tasks: int | None
    reward_macro: Fraction | None
    pass_macro: Fraction | None


def read_rows(table: str | Path | bytes) -> list[Row]:
    """The trial table's rows: its file, or its parquet bytes (preflight's, in memory)."""
    present = pl.read_parquet_schema(table)
    cols = COLUMNS + [c for c in OPTIONAL if c in present]
    return pl.read_parquet(table, columns=cols).to_dicts()


def _value(row: Row, pol: Policy) -> Fraction | None:
    """Section 6.2 step 3 with 6.3's rules first; None: the row is excluded."""
    if (pol.reward or "original") == "regraded" and row.get("reward_regraded") is not None:
        return Fraction(row["reward_regraded"])
    if row.get("verifier_broken"):
        broken = pol.broken_verifier or "as_zero"
        if broken == "exclude_task_both_sides":
            raise Unpredictable("broken_verifier: exclude_task_both_sides spans entries")
        return Fraction(0) if broken == "as_zero" else None
    if row["status"] == "scored":
        return Fraction(row["reward"])
    rule = pol.errored if row["status"] == "errored" else pol.unscored
    return Fraction(0) if rule == "zero" else None


def _first_or_last(rows: list[Row], pol: Policy) -> list[Row]:
    """An earliest or latest policy's k rows, in start order (a select: all policy's k is
    None and it never asks)."""
    assert pol.k is not None
    rows = sorted(rows, key=lambda r: (r["started_at"], r["trial_id"], r["copy"]))
    return rows[: pol.k] if pol.select == "earliest" else rows[-pol.k :]


def task_values(rows: list[Row], pol: Policy) -> list[Fraction] | None:
    """The values of one task's rows under a policy (6.2 steps 1-4); None: unordered."""
    if pol.copies == "drop":
        rows = [r for r in rows if r["copy"] == 0]
    if pol.select != "all":
        if any(r["started_at"] is None for r in rows):
            return None
        rows = _first_or_last(rows, pol)
    values = [v for v in (_value(r, pol) for r in rows) if v is not None]
    if pol.empty_slots == "zero" and pol.slots is not None and len(values) < pol.slots:
        values += [Fraction(0)] * (pol.slots - len(values))
    return values


def selected(rows: list[Row], pol: Policy) -> list[tuple[str, int]] | None:
    """The (trial_id, copy) a policy selects among one task's rows (6.2 steps 1-2)."""
    if pol.copies == "drop":
        rows = [r for r in rows if r["copy"] == 0]
    if pol.select == "all":
        return sorted((r["trial_id"], r["copy"]) for r in rows)
    if any(r["started_at"] is None for r in rows):
        return None
    return sorted((r["trial_id"], r["copy"]) for r in _first_or_last(rows, pol))


def entry(rows: list[Row], run: str, pol: Policy, scale: int) -> Entry:
    """Section 7.1 and 7.5 for one run under one policy, exactly."""
    by_task: dict[str, list[Row]] = {}
    for r in rows:
        if r["run"] == run:
            by_task.setdefault(r["task"], []).append(r)
    means, passes = [], []
    for task in sorted(by_task):
        values = task_values(by_task[task], pol)
        if values is None:
            return Entry(None, None, None)  # an unordered task: the entry has no data (7.4)
        if values:
            means.append(sum(values, Fraction(0)) / len(values))
            passes.append(Fraction(sum(v == 1 for v in values), len(values)))
    n = len(means)
    if n == 0:
        return Entry(0, None, None)
    return Entry(n, scale * sum(means, Fraction(0)) / n, scale * sum(passes, Fraction(0)) / n)


def runs(rows: list[Row]) -> list[str]:
    return sorted({r["run"] for r in rows})
