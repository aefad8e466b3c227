"""pass@k and pass^k per entry (trials contract section 16.5). pandas idiom: one frame
of (entry, policy, task) tries and successes, the binomial coefficients taken
column-wise as Python integers, the exact per-task estimates averaged by a group-by."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd

from ..prereg.trials import Leaderboard
from ..values import format_fraction6
from .tasks import TaskValue

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
FEWER_TRIES = "fewer_tries"
UNORDERED = "unordered"

# C(n, k) over object arrays of Python ints (exact; 0 when k > n)
_comb = np.frompyfunc(math.comb, 2, 1)

# entry -> policy -> "<measure>@<k>" -> value (None: no data)
Values = dict[str, dict[str, dict[str, float | None]]]


def value_key(measure: str, k: int) -> str:
    """Where an entry's value of a pass measure with this k is kept."""
    return f"{measure}@{k}"


def declared_ks(board: Leaderboard | None) -> list[int]:
    """The distinct k the measured columns declare, ascending."""
    if board is None:
        return []
    return sorted({r.k for col in board.measured.values() for r in col.rules if r.k is not None})


def frame_of(per_policy: dict[str, dict[str, list[TaskValue]]]) -> pd.DataFrame:
    """One row per (entry, policy, task): tries, successes, unordered."""
    records = [
        (entry, policy, t.task, t.values, t.passes, t.unordered)
        for policy, entries in per_policy.items()
        for entry, tasks in entries.items()
        for t in tasks
    ]
    return pd.DataFrame(
        records, columns=["entry", "policy", "task", "tries", "successes", "unordered"]
    )


def _fraction_column(num: pd.Series, den: pd.Series) -> pd.Series:
    return pd.Series(
        [Fraction(int(a), int(b)) for a, b in zip(num, den, strict=True)],
        index=num.index,
        dtype=object,
    )


def compute(frame: pd.DataFrame, ks: list[int], scale: int) -> tuple[list[list[str]], Values]:
    """(pass_k_tasks.csv lines, entry values) for every declared k."""
    lines: list[list[str]] = []
    found: Values = {}
    if frame.empty or not ks:
        return lines, found
    ordered = ~frame["unordered"]
    tries = frame["tries"].where(ordered, 0).astype("int64")
    succ = frame["successes"].where(ordered, 0).astype("int64")
    for k in ks:
        f = frame[["entry", "policy", "task", "unordered"]].copy()
        f["ok"] = ordered & (tries >= k)
        at = pd.Series([None] * len(f), index=f.index, dtype=object)
        hat = pd.Series([None] * len(f), index=f.index, dtype=object)
        ok = f["ok"]
        if ok.any():
            n = tries[ok].to_numpy(dtype=object)
            c = succ[ok].to_numpy(dtype=object)
            den = pd.Series(_comb(n, k), index=f.index[ok])
            miss = pd.Series(_comb(n - c, k), index=f.index[ok])
            every = pd.Series(_comb(c, k), index=f.index[ok])
            at[ok] = _fraction_column(den - miss, den)
            hat[ok] = _fraction_column(every, den)
        f["pass_at_k"], f["pass_hat_k"] = at, hat
        f["no_data"] = np.where(f["unordered"], UNORDERED, np.where(ok, "", FEWER_TRIES))
        for row, t, s_ in zip(f.itertuples(index=False), tries, succ, strict=True):
            lines.append(
                [
                    row.entry,
                    row.policy,
                    str(k),
                    row.task,
                    "" if row.unordered else str(t),
                    "" if row.unordered else str(s_),
                    "" if row.pass_at_k is None else format_fraction6(row.pass_at_k),
                    "" if row.pass_hat_k is None else format_fraction6(row.pass_hat_k),
                    row.no_data,
                ]
            )
        summed = f.groupby(["entry", "policy"], sort=True).agg(
            unordered=("unordered", "any"),
            tasks=("ok", "sum"),
            at=("pass_at_k", lambda v: sum(v.dropna(), Fraction(0))),
            hat=("pass_hat_k", lambda v: sum(v.dropna(), Fraction(0))),
        )
        for (entry, policy), g in summed.iterrows():
            vals = found.setdefault(str(entry), {}).setdefault(str(policy), {})
            usable = not g["unordered"] and int(g["tasks"]) > 0
            for measure, total in (("pass_at_k", g["at"]), ("pass_hat_k", g["hat"])):
                vals[value_key(measure, k)] = (
                    float(scale * total / int(g["tasks"])) if usable else None
                )
    lines.sort(key=lambda r: (r[0], r[1], int(r[2]), r[3]))
    return lines, found
