"""Per-task values (contract trials v1, section 6) as group-bys over a frame of trials.

A policy is applied to the whole trial table at once: copies are masked, each
(run, task) group is ranked by start, the selected rows get a value column
(NaN where excluded), and one group-by sums what tasks.csv reports."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np
import pandas as pd

from ..prereg.trials import Policy, Source
from .tables import RegistryRow

GROUP = ["run", "task"]


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


def _optional(x: object) -> object:
    """A frame cell as TaskValue holds it: NaN/NA to None, numpy scalars to Python."""
    if x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x)):
        return None
    return x.item() if isinstance(x, np.generic) else x


def _by_entry(table: pd.DataFrame, entry_col: str, order: list[str]) -> dict[str, list[TaskValue]]:
    """Entry -> its TaskValues in task code-point order, entries in `order`."""
    fields = list(TaskValue.__dataclass_fields__)
    out: dict[str, list[TaskValue]] = {e: [] for e in order}
    for record in table.sort_values([entry_col, "task"], kind="mergesort").to_dict("records"):
        out[record[entry_col]].append(TaskValue(**{f: _optional(record[f]) for f in fields}))
    return out


# ---- registries (6.1) -------------------------------------------------------------------


def registry_frame(rows: list[RegistryRow]) -> pd.DataFrame:
    """The registry cells as a frame (one row per (entry, task))."""
    return pd.DataFrame([asdict(r) for r in rows])


def registry_entries(
    rows: list[RegistryRow], source: Source, policy: Policy
) -> dict[str, list[TaskValue]]:
    """Every registry entry's tasks (code-point order) under one policy (section 6.1)."""
    if not rows:
        return {}
    cells = registry_frame(rows)
    n = cells["trials"].to_numpy(dtype=np.int64)
    c = cells["perfect"].to_numpy(dtype=np.int64)
    share = c / n  # one IEEE division of two integers per cell
    if policy.registry_means == "exact_where_possible":
        # |score - scale * c/n| <= half a unit of the last published decimal, on rationals
        half = Fraction(1, 2 * 10**source.score_decimals)
        scale = Fraction(source.score_scale)
        close = [
            abs(s - scale * Fraction(int(ci), int(ni))) <= half
            for s, ci, ni in zip(cells["score_exact"], c, n, strict=True)
        ]
        exact = (cells["passes"].to_numpy() == c) & np.array(close, dtype=bool)
    else:
        exact = np.zeros(len(cells), dtype=bool)
    from_score = cells["score"].to_numpy(dtype=np.float64) / float(source.score_scale)
    table = pd.DataFrame(
        {
            "entry": cells["entry"],
            "task": cells["task"],
            "selected": n,
            "values": n,
            "mean": np.where(exact, share, from_score),
            "pass_share": share,
            "exact": exact,
            "rounded": ~exact,
        }
    ).astype(object)
    for blank in ("copies", "scored", "errored", "unscored", "excluded", "zeros_added"):
        table[blank] = None
    table["unordered"] = False
    table["passes"] = None
    return _by_entry(table, "entry", list(pd.unique(cells["entry"])))


# ---- trial tables (6.2, 6.3) ------------------------------------------------------------


def selection(frame: pd.DataFrame, policy: Policy) -> tuple[pd.DataFrame, pd.Index]:
    """Section 6.2 steps 1 and 2: (selected rows, the (run, task) groups left unordered)."""
    rows = frame if policy.copies == "keep" else frame[frame["copy"] == 0]
    if policy.select == "all":
        return rows, pd.MultiIndex.from_tuples([], names=GROUP)
    undated = rows["started_at"].isna().groupby([rows["run"], rows["task"]]).any()
    unordered = undated.index[undated.to_numpy()]
    dated = rows[~pd.MultiIndex.from_frame(rows[GROUP]).isin(unordered)]
    ranked = dated.sort_values([*GROUP, "started_at", "trial_id", "copy"], kind="mergesort")
    grouped = ranked.groupby(GROUP, sort=False)
    place = grouped.cumcount()  # 0 for the earliest row of its group
    size = grouped["task"].transform("size")
    assert policy.k is not None
    keep = place < policy.k if policy.select == "earliest" else place >= size - policy.k
    return ranked[keep.to_numpy()], unordered


def _valued(chosen: pd.DataFrame, policy: Policy) -> pd.Series:
    """Section 6.3 then 6.2 step 3: each selected row's value, NaN where excluded."""
    regrade = (
        chosen["regraded"].notna()
        if policy.reward == "regraded"
        else pd.Series(False, index=chosen.index)
    )
    status = chosen["status"]
    zero_for = {"errored": policy.errored == "zero", "unscored": policy.unscored == "zero"}
    status_zero = status.map(zero_for).fillna(False).astype(bool)
    value = np.select(
        [
            regrade.to_numpy(),
            chosen["broken"].to_numpy(dtype=bool),
            (status == "scored").to_numpy(),
            status_zero.to_numpy(),
        ],
        [
            chosen["regraded"].to_numpy(),
            np.full(len(chosen), 0.0 if policy.broken_verifier == "as_zero" else np.nan),
            chosen["reward"].to_numpy(),
            np.zeros(len(chosen)),
        ],
        default=np.nan,
    )
    return pd.Series(value, index=chosen.index, dtype=np.float64)


def leaving_tasks(chosen: pd.DataFrame, policy: Policy) -> set[str]:
    """exclude_task_both_sides: tasks with a selected broken row no regrade takes, in any run."""
    if policy.broken_verifier != "exclude_task_both_sides":
        return set()
    broken = chosen["broken"].astype(bool)
    if policy.reward == "regraded":
        broken &= chosen["regraded"].isna()
    return set(chosen.loc[broken, "task"])


def trial_values(chosen: pd.DataFrame, policy: Policy) -> tuple[pd.Series, set[str]]:
    """Each selected row's value under 6.2 step 3 with 6.3 (NaN: excluded, a row of a task
    that leaves every entry included), and the leaving tasks. The per-task values of
    section 6 and the run-level values of section 16.3 both come from here."""
    leaving = leaving_tasks(chosen, policy)
    value = _valued(chosen, policy)
    value[chosen["task"].isin(leaving).to_numpy()] = np.nan
    return value, leaving


def per_task(frame: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """One row per (run, task) of the table: tasks.csv's counts, mean and pass share."""
    index = pd.MultiIndex.from_frame(frame[GROUP].drop_duplicates())
    chosen, unordered = selection(frame, policy)
    value, leaving = trial_values(chosen, policy)
    work = chosen[GROUP].assign(
        value=value,
        one=1,
        scored=(chosen["status"] == "scored").astype(int),
        errored=(chosen["status"] == "errored").astype(int),
        unscored=(chosen["status"] == "unscored").astype(int),
        kept=value.notna().astype(int),
        passes=(value == 1.0).astype(int),
    )
    grouped = work.groupby(GROUP)
    table = grouped[["one", "scored", "errored", "unscored", "kept", "passes"]].sum()
    # exact sum of each task's values, correctly rounded once (math.fsum)
    table["total"] = grouped["value"].agg(lambda v: math.fsum(v.dropna()))
    table = table.reindex(index, fill_value=0).rename(columns={"one": "selected"})
    table["copies"] = (frame["copy"] > 0).groupby([frame["run"], frame["task"]]).sum()
    table["excluded"] = table["selected"] - table["kept"]
    out = table.reset_index()
    stays = ~out["task"].isin(leaving)
    if policy.empty_slots == "zero":
        assert policy.slots is not None
        out["zeros_added"] = np.where(stays, (policy.slots - out["kept"]).clip(lower=0), 0)
    else:
        out["zeros_added"] = 0
    out["values"] = out["kept"] + out["zeros_added"]
    has = out["values"] > 0
    out["mean"] = (out["total"] / out["values"]).where(has)  # IEEE division
    out["pass_share"] = (out["passes"] / out["values"]).where(has)
    out["exact"] = has.astype(object).where(has, None)
    out["rounded"] = False
    out["unordered"] = pd.MultiIndex.from_frame(out[GROUP]).isin(unordered)
    out = out.astype(object)
    counts = ["selected", "scored", "errored", "unscored", "excluded", "zeros_added"]
    out.loc[out["unordered"], [*counts, "values", "mean", "pass_share", "exact", "passes"]] = None
    return out


def trial_entries(frame: pd.DataFrame, policy: Policy) -> dict[str, list[TaskValue]]:
    """Every run's tasks (code-point order) under one selection rule, from the frame of
    trials that tables.trial_rows checked."""
    if frame.empty:
        return {}
    return _by_entry(per_task(frame, policy), "run", list(pd.unique(frame["run"])))
