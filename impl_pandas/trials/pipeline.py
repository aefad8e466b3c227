"""The whole trial-level recompute: checks in the contract's order, values, statistics, files."""

from __future__ import annotations

import os

from .. import checks, read
from ..floats import format_float_or_empty
from ..prereg import load_document
from ..prereg.trials import REGISTRY, parse, table_names
from ..values import NULL_KIND
from ..write import render
from . import csvboard, judge, nulls, overruns, passk, ranks, stats, tables, tasks

TASKS_HEADER = [
    "entry",
    "policy",
    "task",
    "copies",
    "selected",
    "scored",
    "errored",
    "unscored",
    "excluded",
    "zeros_added",
    "values",
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
    *stats.COUNT_FIELDS,
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


def _int(x: int | None) -> str:
    return "" if x is None else str(x)


def _bool(x: bool | None) -> str:
    return "" if x is None else ("true" if x else "false")


def _task_line(entry: str, policy: str, t: tasks.TaskValue) -> list[str]:
    return [
        entry,
        policy,
        t.task,
        _int(t.copies),
        _int(t.selected),
        _int(t.scored),
        _int(t.errored),
        _int(t.unscored),
        _int(t.excluded),
        _int(t.zeros_added),
        _int(t.values),
        format_float_or_empty(t.mean),
        format_float_or_empty(t.pass_share),
        _bool(t.exact),
    ]


def _entry_line(entry: str, policy: str, s: stats.EntryStats) -> list[str]:
    rb = s.reward_boot or (None, None)
    pb = s.pass_boot or (None, None)
    return [
        entry,
        policy,
        _int(s.tasks),
        _int(s.tasks_left_out),
        _int(s.unordered_tasks),
        _int(s.rounded_tasks),
        *[_int(s.counts[name]) for name in stats.COUNT_FIELDS],
        format_float_or_empty(s.reward_macro),
        format_float_or_empty(s.reward_ci95),
        format_float_or_empty(rb[0]),
        format_float_or_empty(rb[1]),
        format_float_or_empty(s.reward_bound),
        format_float_or_empty(s.reward_ci95_bound),
        format_float_or_empty(s.pass_macro),
        format_float_or_empty(s.pass_ci95),
        format_float_or_empty(pb[0]),
        format_float_or_empty(pb[1]),
    ]


def run(prereg_path: str, bundle_dir: str, draws: bool = True) -> dict[str, bytes]:
    """Compute the output files (bytes); InputError on unusable input.

    Classes in the order of section 5; within a class, files in the order
    prereg, leaderboard, source table. Without `draws` (section 9.1) only the
    null's table reproduce.csv is written, not nulls.csv and null_hist.csv."""
    doc = load_document(prereg_path)  # missing_file ... bad_prereg from reading (prereg)
    board_name, source_name = table_names(doc)
    paths = [None if n is None else os.path.join(bundle_dir, n) for n in (board_name, source_name)]
    for path in paths:  # missing_file
        if path is not None:
            read.require_file(path, path)
    loaded = [  # unreadable; a .csv leaderboard is text until its declared types apply
        None
        if p is None
        else (csvboard.load_csv(p, p) if p.endswith(".csv") else read.load_table(p, p))
        for p in paths
    ]
    pre = parse(doc, prereg_path)  # bad_prereg: the schema, then the prereg's own checks
    declared_ranks = ranks.parse(doc, prereg_path, pre)  # bad_prereg (section 17)
    board_table = loaded[0] if pre.leaderboard is not None else None
    source_table = loaded[1]
    assert source_table is not None
    lb = pre.leaderboard
    if lb is not None:
        assert board_table is not None
        checks.missing_columns(board_table, tables.leaderboard_names(lb))  # missing_column
    checks.missing_columns(source_table, tables.source_names(pre.source))
    if lb is not None:
        assert board_table is not None
        checks.undeclared_columns(board_table, lb.kind_of(), lb.unpublished)  # undeclared_column
        checks.duplicate_columns(board_table)  # duplicate_column
    checks.duplicate_columns(source_table)
    if lb is not None:
        assert board_table is not None
        if lb.types is not None:  # a CSV field that is not of its declared type: bad_type
            board_table = csvboard.apply_types(board_table, lb.types)
        tables.leaderboard_types(board_table, lb)  # bad_type
    tables.source_types(source_table, pre.source)
    ids: list[str] = []
    if lb is not None:
        assert board_table is not None
        ids = tables.leaderboard_ids(board_table, lb)  # bad_key
    tables.source_keys(source_table, pre.source)
    if lb is not None:
        assert board_table is not None
        tables.duplicate_ids(board_table.display, ids, "row id")  # duplicate_key
    tables.source_duplicates(source_table, pre.source)
    if lb is not None:
        assert board_table is not None
        tables.unknown_rows(board_table.display, lb, ids)  # unknown_row
    registry = pre.source.kind == REGISTRY
    if registry:  # bad_value
        reg_rows = tables.registry_rows(source_table, pre.source)
    else:
        trial_rows = tables.trial_rows(source_table)

    task_lines: list[list[str]] = []
    entry_lines: list[list[str]] = []
    all_stats: dict[str, dict[str, stats.EntryStats]] = {}
    per_policy: dict[str, dict[str, list[tasks.TaskValue]]] = {}
    for name, policy in pre.policies.items():
        if registry:
            per_entry = tasks.registry_entries(reg_rows, pre.source, policy)
        else:
            per_entry = tasks.trial_entries(trial_rows, policy)
        per_policy[name] = per_entry
        for entry, values in per_entry.items():
            for t in values:
                task_lines.append(_task_line(entry, name, t))
            s = stats.entry_stats(
                values,
                pre.scale,
                pre.seed,
                pre.bootstrap_draws,
                pre.source if registry else None,
            )
            all_stats.setdefault(entry, {})[name] = s
            entry_lines.append(_entry_line(entry, name, s))
    task_lines.sort(key=lambda r: (r[0], r[1], r[2]))
    entry_lines.sort(key=lambda r: (r[0], r[1]))

    runs_lines: list[list[str]] = []
    pk_lines: list[list[str]] = []
    run_values: judge.RunValues = {}
    if pre.runs is not None and not registry:
        assert source_table.frame is not None
        runs_lines, pk_lines, run_values = overruns.entry_lines(
            source_table.frame, trial_rows, pre.policies, pre.runs, pre.scale
        )

    pk_task_lines: list[list[str]] = []
    if not registry:  # section 16.5: pass@k / pass^k with each declared k
        pk_task_lines, pk_values = passk.compute(
            passk.frame_of(per_policy), passk.declared_ks(lb), pre.scale
        )
        for entry, by_policy in pk_values.items():
            for name, vals in by_policy.items():
                run_values.setdefault(entry, {}).setdefault(name, {}).update(vals)

    cells: list[list[str]] = []
    census: list[list[str]] = []
    recovery: list[list[str]] = []
    recovery_rows: list[list[str]] = []
    null_lines: list[list[str]] = []
    hist_lines: list[list[str]] = []
    reproduce_lines: list[list[str]] = []
    if lb is not None:
        assert board_table is not None and board_table.frame is not None
        values = {
            n: board_table.frame[n].to_numpy(dtype=object).tolist() for n in board_table.names
        }
        # a column declared `published: false` is judged with every value not published
        names = [*board_table.names, *lb.unpublished]
        kinds = {**board_table.kinds, **{n: NULL_KIND for n in lb.unpublished}}
        values.update({n: [None] * len(ids) for n in lb.unpublished})
        judged = judge.build(lb, names, kinds, values, ids, all_stats, run_values)
        cells, census = judged.cells, judged.census
        recovery, recovery_rows = judged.recovery, judged.recovery_rows
        null_table = nulls.tables(lb, kinds, values, ids, all_stats, judged.classes, run_values)
        reproduce_lines = nulls.reproduce_rows(null_table)
        if draws:
            null_lines, hist_lines = nulls.build(
                lb, null_table, judged.classes, pre.seed, pre.null_draws
            )
    rank_files = {}
    if declared_ranks is not None and lb is not None:  # section 17: declared only
        pair_rows, rank_rows = ranks.build(*declared_ranks, ids, values, per_policy)
        rank_files = {
            "rank_pairs.csv": render(ranks.census.PAIRS_HEADER, pair_rows),
            "ranks.csv": render(ranks.census.ROWS_HEADER, rank_rows),
        }
    null_files = {"reproduce.csv": render(nulls.REPRODUCE_HEADER, reproduce_lines)}
    if draws:
        null_files["nulls.csv"] = render(nulls.NULLS_HEADER, null_lines)
        null_files["null_hist.csv"] = render(nulls.HIST_HEADER, hist_lines)
    return {
        "tasks.csv": render(TASKS_HEADER, task_lines),
        "entries.csv": render(ENTRIES_HEADER, entry_lines),
        "cells.csv": render(judge.CELLS_HEADER, cells),
        "census.csv": render(judge.CENSUS_HEADER, census),
        "recovery.csv": render(judge.RECOVERY_HEADER, recovery),
        "recovery_rows.csv": render(judge.RECOVERY_ROWS_HEADER, recovery_rows),
        **null_files,
        "runs.csv": render(overruns.RUNS_HEADER, runs_lines),
        "pass_k.csv": render(overruns.PASSK_HEADER, pk_lines),
        "pass_k_tasks.csv": render(passk.HEADER, pk_task_lines),
        **rank_files,
    }
