"""Runs inside an entry (trials contract section 16), pyarrow + pure Python: the trial
columns are read once with pyarrow, values accumulated per (entry, replicate) and per
(entry, task) in dictionaries, variances taken on exact rationals."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pyarrow as pa

from ..errors import fail
from ..formatting import format_float
from .pertask import row_value
from .tables import TrialRow

MEASURES = (
    "run_mean",
    "se_runs_sample",
    "se_runs_population",
    "pooled_rate",
    "se_binomial_pooled",
    "se_clustered_tasks",
    "se_clustered_tasks_inspect",
)
RUNS_HEADER = ["entry", "policy", "unit", "runs", "trials", "run_rates", *MEASURES]
PASSK_HEADER = ["entry", "policy", "k", "tasks", "tasks_left_out", "pass_at_k", "pass_pow_k"]


def _sqrt_q(q: Fraction) -> float:
    return math.sqrt(float(q))


def _choose(n: int, k: int) -> int:
    return math.comb(n, k) if k <= n else 0


def compute(
    table: pa.Table,
    rows: list[TrialRow],
    leaving: dict[str, frozenset[str]],
    policies: dict[str, Any],
    block: dict[str, Any],
    scale: int,
) -> tuple[list[list[str]], list[list[str]], dict[str, dict[str, dict[str, float | None]]]]:
    """(runs.csv rows, pass_k.csv rows, entry -> policy -> measure -> value).

    ``table`` gives each trial its replicate (tb_run, attempt); ``rows`` are the same
    trials in the same order as tables.trial_rows checked them, and a trial's value is
    pertask.row_value's (6.2 step 3 with 6.3); ``leaving`` names, per policy, the tasks
    that exclude_task_both_sides takes out of every entry: their trials are no value."""
    need = ("run", "task", "copy", "status", "reward", "tb_run", "attempt")
    for name in need:
        if name not in table.column_names:
            raise fail(
                "missing_column", "trials.parquet", f"column {name!r} is missing (runs block)"
            )
    assert len(rows) == table.num_rows
    cols = {n: table.column(n).to_pylist() for n in ("run", "tb_run", "attempt")}
    S = float(scale)
    by_attempt = block["unit"] == "attempt"
    rows_out: list[list[str]] = []
    pk_rows: list[list[str]] = []
    values: dict[str, dict[str, dict[str, float | None]]] = {}
    entries = sorted(set(cols["run"]))
    for pname in sorted(policies):
        pol = policies[pname]
        plain = pol.select == "all" and pol.empty_slots == "ignore"
        # (entry) -> replicate -> [values]; (entry) -> task -> [values]
        reps: dict[str, dict[str, list[float]]] = {e: {} for e in entries}
        tasks: dict[str, dict[str, list[float]]] = {e: {} for e in entries}
        for i in range(len(cols["run"])):
            trial = rows[i]
            if pol.copies == "drop" and trial.copy != 0:
                continue
            if trial.task in leaving[pname]:
                continue
            v = row_value(trial, pol)
            if v is None:  # excluded: no value, in no replicate and no task's cluster
                continue
            e = trial.run
            rep = cols["tb_run"][i]
            if by_attempt:
                a = cols["attempt"][i]
                rep = f"{rep}#{'' if a is None else a}"
            reps[e].setdefault(rep, []).append(v)
            tasks[e].setdefault(trial.task, []).append(v)
        for e in entries:
            got: dict[str, float | None] = {}
            values.setdefault(e, {})[pname] = got
            allv = [v for vs in reps[e].values() for v in vs]
            if not plain or not allv:
                rows_out.append(
                    [
                        e,
                        pname,
                        block["unit"],
                        *([""] * 2 if not plain else ["0", "0"]),
                        *[""] * (1 + len(MEASURES)),
                    ]
                )
                continue
            # each replicate's rate and the pooled rate are doubles: fsum / count
            rate_d = [math.fsum(vs) / len(vs) for _, vs in sorted(reps[e].items())]
            rates = [Fraction(x) for x in rate_d]
            r = len(rates)
            n = len(allv)
            mean_r = sum(rates, Fraction(0)) / r
            ss = sum(((x - mean_r) ** 2 for x in rates), Fraction(0))
            p_d = math.fsum(allv) / n
            p = Fraction(p_d)
            cl = sum(
                ((Fraction(math.fsum(vs)) - p * len(vs)) ** 2 for vs in tasks[e].values()),
                Fraction(0),
            )
            c = len(tasks[e])
            got["run_mean"] = (math.fsum(rate_d) / r) * S
            got["se_runs_sample"] = _sqrt_q(ss / (r - 1) / r) * S if r > 1 else None
            got["se_runs_population"] = _sqrt_q(ss / r / r) * S if r > 1 else None
            got["pooled_rate"] = p_d * S
            got["se_binomial_pooled"] = _sqrt_q(p * (1 - p) / n) * S
            got["se_clustered_tasks"] = _sqrt_q(cl / (n * n)) * S
            got["se_clustered_tasks_inspect"] = (
                _sqrt_q(cl * c / (c - 1) / (n * n)) * S if c > 1 else None
            )
            rows_out.append(
                [
                    e,
                    pname,
                    block["unit"],
                    str(r),
                    str(n),
                    ";".join(format_float(float(x) * S) for x in rates),
                    *["" if got[m] is None else format_float(got[m]) for m in MEASURES],
                ]
            )
            for k in block["pass_k"]:
                at: list[Fraction] = []
                pw: list[Fraction] = []
                for _, vs in sorted(tasks[e].items()):
                    t = len(vs)
                    if t < k:
                        continue  # fewer than k tries: no data for this task
                    cpass = sum(1 for v in vs if v == 1.0)
                    at.append(1 - Fraction(_choose(t - cpass, k), _choose(t, k)))
                    pw.append(Fraction(_choose(cpass, k), _choose(t, k)))
                left = len(tasks[e]) - len(at)
                if not at:
                    got[f"pass_at_{k}"] = got[f"pass_pow_{k}"] = None
                    pk_rows.append([e, pname, str(k), "0", str(left), "", ""])
                    continue
                got[f"pass_at_{k}"] = float(sum(at, Fraction(0)) / len(at)) * S
                got[f"pass_pow_{k}"] = float(sum(pw, Fraction(0)) / len(pw)) * S
                pk_rows.append(
                    [
                        e,
                        pname,
                        str(k),
                        str(len(at)),
                        str(left),
                        format_float(got[f"pass_at_{k}"]),
                        format_float(got[f"pass_pow_{k}"]),
                    ]
                )
    rows_out.sort(key=lambda row: (row[0], row[1]))
    pk_rows.sort(key=lambda row: (row[0], row[1], int(row[2])))
    return rows_out, pk_rows, values
