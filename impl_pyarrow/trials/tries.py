"""pass@k and pass^k over each task's tries (trials contract section 16.5).

pyarrow compute finds the tasks with enough tries; each estimate is a falling
product of exact rationals (pass^k = prod (c-i)/(n-i), pass@k = 1 - prod
(n-c-i)/(n-i), i < k), summed per (entry, policy) in plain Python."""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

from ..formatting import format_fraction
from ..prereg.trials import Board
from .pertask import TaskValue

HEADER = [
    "entry",
    "policy",
    "k",
    "task",
    "tries",
    "successes",
    "pass_at_k",
    "pass_hat_k",
    "no_data",
]

# (entry, policy, measure, k) -> the entry's value (None: no data)
TriesValues = dict[tuple[str, str, str, int], float | None]


def ks_of(board: Board | None) -> list[int]:
    """Every k a measured column declares, each once, ascending."""
    found: set[int] = set()
    for m in board.measured.values() if board is not None else ():
        found.update(r.k for r in m.recipes if r.k is not None)
    return sorted(found)


def _falling(top: int, n: int, k: int) -> Fraction:
    """prod_{i<k} (top - i) / (n - i): drawing k of n without replacement, all from top."""
    q = Fraction(1)
    for i in range(k):
        q *= Fraction(top - i, n - i)
        if q == 0:
            break
    return q


def table_of(per_task: dict[tuple[str, str], list[TaskValue]]) -> pa.Table:
    entries, policies, tasks, tries, wins, unordered = [], [], [], [], [], []
    for (entry, policy), tvals in per_task.items():
        for t in tvals:
            entries.append(entry)
            policies.append(policy)
            tasks.append(t.task)
            tries.append(t.values)
            wins.append(t.successes)
            unordered.append(t.unordered)
    return pa.table(
        {
            "entry": pa.array(entries, pa.string()),
            "policy": pa.array(policies, pa.string()),
            "task": pa.array(tasks, pa.string()),
            "tries": pa.array(tries, pa.int64()),
            "successes": pa.array(wins, pa.int64()),
            "unordered": pa.array(unordered, pa.bool_()),
        }
    )


def compute(table: pa.Table, ks: list[int], scale: int) -> tuple[list[list[str]], TriesValues]:
    """(pass_k_tasks.csv rows, entry values) for each declared k."""
    rows: list[list[str]] = []
    out: TriesValues = {}
    if not ks or table.num_rows == 0:
        return rows, out
    entries = table.column("entry").to_pylist()
    policies = table.column("policy").to_pylist()
    tasks = table.column("task").to_pylist()
    tries = table.column("tries").to_pylist()
    wins = table.column("successes").to_pylist()
    unordered = table.column("unordered").to_pylist()
    blocked = {
        (e, p) for e, p, u in zip(entries, policies, unordered, strict=True) if u
    }  # 7.4: one unordered task leaves the entry without data
    for k in ks:
        enough = pc.fill_null(pc.greater_equal(table.column("tries"), k), False).to_pylist()
        sums: dict[tuple[str, str], list[Fraction]] = {}
        for i, e in enumerate(entries):
            key = (e, policies[i])
            acc = sums.setdefault(key, [Fraction(0), Fraction(0), Fraction(0)])
            at = hat = ""
            reason = "unordered" if unordered[i] else ("" if enough[i] else "fewer_tries")
            if not reason:
                n, c = tries[i], wins[i]
                p_at = 1 - _falling(n - c, n, k)
                p_hat = _falling(c, n, k)
                acc[0] += p_at
                acc[1] += p_hat
                acc[2] += 1
                at, hat = format_fraction(p_at), format_fraction(p_hat)
            rows.append(
                [
                    e,
                    policies[i],
                    str(k),
                    tasks[i],
                    "" if unordered[i] else str(tries[i]),
                    "" if unordered[i] else str(wins[i]),
                    at,
                    hat,
                    reason,
                ]
            )
        for (e, p), (s_at, s_hat, count) in sums.items():
            ok = count > 0 and (e, p) not in blocked
            out[(e, p, "pass_at_k", k)] = float(Fraction(scale) * s_at / count) if ok else None
            out[(e, p, "pass_hat_k", k)] = float(Fraction(scale) * s_hat / count) if ok else None
    rows.sort(key=lambda r: (r[0], r[1], int(r[2]), r[3]))
    return rows, out
