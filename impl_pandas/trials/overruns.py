"""Runs inside an entry (trials contract section 16): statistics over the runs of an
entry, the pooled rate and its intervals, pass@k / pass^k per entry. pandas idiom:
one frame of selected values, group-bys for runs and tasks."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..errors import MISSING_COLUMN, InputError
from ..floats import format_float, format_float_or_empty
from . import tasks

RUNS_HEADER = [
    "entry",
    "policy",
    "unit",
    "runs",
    "trials",
    "run_rates",
    "run_mean",
    "se_runs_sample",
    "se_runs_population",
    "pooled_rate",
    "se_binomial_pooled",
    "se_clustered_tasks",
    "se_clustered_tasks_inspect",
]
PASSK_HEADER = ["entry", "policy", "k", "tasks", "tasks_left_out", "pass_at_k", "pass_pow_k"]


def _values(frame: pd.DataFrame, trials: pd.DataFrame, policy: Any) -> pd.DataFrame | None:
    """The trials' values under a policy: 6.2 steps 1 and 3 with 6.3 (copies, errored,
    unscored, reward, broken_verifier), decided by tasks.trial_values; an excluded trial
    is no value. None when the policy selects or pads (run statistics are defined for
    select all, no slots only). `frame` (the table as read, in table order) gives each
    trial's replicate; `trials` (tables.trial_rows, the same order) its value."""
    if policy.select != "all" or policy.empty_slots != "ignore":
        return None
    chosen, _ = tasks.selection(trials, policy)
    value, _ = tasks.trial_values(chosen, policy)
    replicate = frame[["tb_run", "attempt"]].reset_index(drop=True).loc[chosen.index]
    f = chosen[["run", "task"]].join(replicate).assign(value=value)
    return f[f["value"].notna()]


def _se_over_runs(rates: np.ndarray, ddof: int) -> float | None:
    """sqrt(float(V / R)), V the exact variance of the run rates (the doubles) with
    R - ddof in its denominator (section 16.3); None for R < 2."""
    n = rates.size
    if n < 2:
        return None
    exact = [Fraction(float(x)) for x in rates]
    mean = sum(exact, Fraction(0)) / n
    squares = sum(((x - mean) ** 2 for x in exact), Fraction(0))
    return math.sqrt(float(squares / (n - ddof) / n))


def _comb(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


def entry_lines(
    frame: pd.DataFrame,
    trials: pd.DataFrame,
    policies: dict[str, Any],
    block: dict[str, Any],
    scale: int,
) -> tuple[list[list[str]], list[list[str]], dict[str, dict[str, dict[str, float | None]]]]:
    """(runs.csv lines, pass_k.csv lines, values by entry, policy, measure); `frame` is the
    trial table as read, `trials` its rows as tables.trial_rows checked them."""
    for col in ("tb_run", "attempt", "run", "task", "copy", "status", "reward"):
        if col not in frame.columns:
            raise InputError(MISSING_COLUMN, "trials.parquet", f"no column {col!r} (runs block)")
    s = float(scale)
    unit = block["unit"]
    runs_out: list[list[str]] = []
    pk_found: list[tuple[str, str, int, int, int, float | None, float | None]] = []
    found: dict[str, dict[str, dict[str, float | None]]] = {}
    for name, policy in policies.items():
        chosen = _values(frame, trials, policy)
        for entry, part in frame.groupby("run", sort=True):
            vals: dict[str, float | None] = {}
            found.setdefault(str(entry), {})[name] = vals
            if chosen is None:
                runs_out.append([str(entry), name, unit, *[""] * 10])
                continue
            f = chosen[chosen["run"] == entry]
            if unit == "attempt":
                attempt = f["attempt"].astype("Int64").astype(str).replace("<NA>", "")
                key = f["tb_run"].astype(str) + "#" + attempt
            else:
                key = f["tb_run"]
            # r_j = fsum / n_j per replicate, as doubles (section 16.3)
            rates = (
                f.groupby(key, sort=True)["value"]
                .agg(lambda v: math.fsum(v.tolist()) / len(v))
                .to_numpy(dtype="float64")
            )
            n = int(f.shape[0])
            if n == 0:
                runs_out.append([str(entry), name, unit, "0", "0", *[""] * 8])
                continue
            p = math.fsum(f["value"].tolist()) / n
            exact_p = Fraction(p)
            sums = f.groupby("task", sort=True)["value"].agg(
                total=lambda v: math.fsum(v.tolist()), size="size"
            )
            q = sum(
                (
                    (Fraction(t) - int(m) * exact_p) ** 2
                    for t, m in zip(sums["total"], sums["size"])
                ),
                Fraction(0),
            )
            c = int(sums.shape[0])
            sample, population = _se_over_runs(rates, 1), _se_over_runs(rates, 0)
            vals.update(
                {
                    "run_mean": (math.fsum(rates.tolist()) / rates.size) * s,
                    "se_runs_sample": None if sample is None else sample * s,
                    "se_runs_population": None if population is None else population * s,
                    "pooled_rate": p * s,
                    "se_binomial_pooled": math.sqrt(float(exact_p * (1 - exact_p) / n)) * s,
                    "se_clustered_tasks": math.sqrt(float(q / (n * n))) * s,
                    "se_clustered_tasks_inspect": math.sqrt(float(q * c / ((c - 1) * n * n))) * s
                    if c > 1
                    else None,
                }
            )
            runs_out.append(
                [
                    str(entry),
                    name,
                    unit,
                    str(rates.size),
                    str(n),
                    ";".join(format_float(r * s) for r in rates),
                    *[format_float_or_empty(vals[m]) for m in RUNS_HEADER[6:]],
                ]
            )
            per_task = f.groupby("task", sort=True)["value"].agg(
                tries="size", passes=lambda v: int((v == 1.0).sum())
            )
            for k in block["pass_k"]:
                ok = per_task[per_task["tries"] >= k]
                left = int(per_task.shape[0] - ok.shape[0])
                if ok.empty:
                    vals[f"pass_at_{k}"] = vals[f"pass_pow_{k}"] = None
                    pk_found.append((str(entry), name, k, 0, left, None, None))
                    continue
                at = [
                    1.0 - _comb(int(t) - int(c_), k) / _comb(int(t), k)
                    for t, c_ in zip(ok["tries"], ok["passes"], strict=True)
                ]
                pw = [
                    _comb(int(c_), k) / _comb(int(t), k)
                    for t, c_ in zip(ok["tries"], ok["passes"], strict=True)
                ]
                vals[f"pass_at_{k}"] = math.fsum(at) / len(at) * s
                vals[f"pass_pow_{k}"] = math.fsum(pw) / len(pw) * s
                pk_found.append(
                    (
                        str(entry),
                        name,
                        k,
                        len(at),
                        left,
                        vals[f"pass_at_{k}"],
                        vals[f"pass_pow_{k}"],
                    )
                )
    runs_out.sort(key=lambda r: (r[0], r[1]))
    return runs_out, _pass_k_lines(pk_found), found


def _pass_k_lines(found: list[tuple[Any, ...]]) -> list[list[str]]:
    """pass_k.csv lines by (entry, policy, k): counts as integers, values six decimals."""
    table = pd.DataFrame(found, columns=PASSK_HEADER, dtype=object)
    table = table.sort_values(["entry", "policy", "k"], kind="mergesort")
    for col in ("k", "tasks", "tasks_left_out"):
        table[col] = table[col].map(str)
    for col in ("pass_at_k", "pass_pow_k"):
        table[col] = table[col].map(format_float_or_empty)
    return table.to_numpy().tolist()
