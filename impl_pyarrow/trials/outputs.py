"""The trials part's output files (section 9) as Arrow tables of text, one per file.

tasks.csv and entries.csv are built here column by column: counts as int64 arrays
cast to text by Arrow (null: an empty field), floats printed by the contract's rule
(formatting.format_float), tasks.csv's rows put in order by Arrow's sort. The other
files' rows come from the modules that compute them. Every table is written by the
one CSV writer (write.render_table).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..formatting import format_float
from ..write import render_table
from .pertask import TaskValue
from .stats import COUNT_NAMES, EntryStats

TASKS_HEADER = [
    "entry",
    "policy",
    "task",
    "copies",
    *COUNT_NAMES,
    "reward_mean",
    "pass_share",
    "reward_exact",
]
ENTRIES_HEADER = [
    "entry",
    "policy",
    "tasks",
    "tasks_left_out",
    "unordered_tasks",
    "rounded_tasks",
    *COUNT_NAMES,
    "reward_macro",
    "reward_ci95",
    "reward_boot_low",
    "reward_boot_high",
    "reward_bound",
    "reward_ci95_bound",
    "pass_macro",
    "pass_ci95",
    "pass_boot_low",
    "pass_boot_high",
]


def _ints(values: Iterable[int | None]) -> pa.Array:
    return pc.cast(pa.array(list(values), pa.int64()), pa.string())


def _floats(values: Iterable[float | None]) -> pa.Array:
    return pa.array([None if x is None else format_float(x) for x in values], pa.string())


def _bools(values: Iterable[bool | None]) -> pa.Array:
    return pc.cast(pa.array(list(values), pa.bool_()), pa.string())  # true / false


def text_table(header: list[str], rows: list[list[str]]) -> pa.Table:
    """Rows another module computed, as a table of text columns."""
    columns = [list(c) for c in zip(*rows)] if rows else [[] for _ in header]
    return pa.table([pa.array(c, pa.string()) for c in columns], names=header)


def tasks_table(per_task: dict[tuple[str, str], list[TaskValue]]) -> pa.Table:
    """tasks.csv: one row per (entry, policy, task), ordered by those three; an unordered
    task (section 7.4) shows its copies only."""
    keyed = [(e, p, t) for (e, p), tvals in per_task.items() for t in tvals]

    def shown(name: str) -> list[Any]:
        return [None if t.unordered else getattr(t, name) for _, _, t in keyed]

    table = pa.table(
        [
            pa.array([e for e, _, _ in keyed], pa.string()),
            pa.array([p for _, p, _ in keyed], pa.string()),
            pa.array([t.task for _, _, t in keyed], pa.string()),
            _ints(t.copies for _, _, t in keyed),
            *[_ints(shown(name)) for name in COUNT_NAMES],
            _floats(shown("mean")),
            _floats(shown("pass_share")),
            _bools(shown("exact")),
        ],
        names=TASKS_HEADER,
    )
    return table.sort_by([("entry", "ascending"), ("policy", "ascending"), ("task", "ascending")])


def entries_table(stats: dict[tuple[str, str], EntryStats]) -> pa.Table:
    """entries.csv: one row per (entry, policy), in that order."""
    rows = [stats[key] for key in sorted(stats)]
    boot_r = [st.reward_boot or (None, None) for st in rows]
    boot_p = [st.pass_boot or (None, None) for st in rows]
    return pa.table(
        [
            pa.array([st.entry for st in rows], pa.string()),
            pa.array([st.policy for st in rows], pa.string()),
            _ints(st.tasks for st in rows),
            _ints(st.tasks_left_out for st in rows),
            _ints(st.unordered_tasks for st in rows),
            _ints(st.rounded_tasks for st in rows),
            *[_ints(st.counts[c] for st in rows) for c in COUNT_NAMES],
            _floats(st.reward_macro for st in rows),
            _floats(st.reward_ci95 for st in rows),
            _floats(b[0] for b in boot_r),
            _floats(b[1] for b in boot_r),
            _floats(st.reward_bound for st in rows),
            _floats(st.reward_ci95_bound for st in rows),
            _floats(st.pass_macro for st in rows),
            _floats(st.pass_ci95 for st in rows),
            _floats(b[0] for b in boot_p),
            _floats(b[1] for b in boot_p),
        ],
        names=ENTRIES_HEADER,
    )


def files(tables: dict[str, pa.Table]) -> dict[str, bytes]:
    """Each output file's bytes, by name."""
    return {name: render_table(table) for name, table in tables.items()}
