"""The whole trial-level recompute: checks in the contract's order, outputs written last."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from .. import checks
from ..prereg import trials as prereg
from ..read import bundle_path, open_parquet, read_some, require_file
from ..schema import conform, kinds
from ..write import write_outputs
from . import csvtable, outputs, overruns, ranks, tables, tries
from .judge import (
    CELLS_HEADER,
    CENSUS_HEADER,
    RECOVERY_HEADER,
    RECOVERY_ROWS_HEADER,
    cells_rows,
    census_rows,
    judge,
    recovery_rows,
)
from .nulls import HIST_HEADER, NULLS_HEADER, REPRODUCE_HEADER, nulls_rows, reproduce_rows
from .outputs import text_table
from .pertask import (
    TaskValue,
    registry_entries,
    registry_task,
    tasks_left_by_broken_verifiers,
    trial_entries,
    trial_task,
)
from .stats import BootStream, EntryStats, entry_stats


def _read(pf: pq.ParquetFile, path: str, names: list[str] | None = None) -> pa.Table:
    """The named columns (or all) as the file's own schema holds them (docs/contract.md,
    Types): a column Arrow reads as a duration is the INT64 the file stores (schema.conform)."""
    return conform(read_some(pf, path, names), kinds(pf))


def compute(prereg_path: str, bundle_dir: str, draws: bool = True) -> dict[str, bytes]:
    """Every output file's bytes; raises TrialInputError on unusable input.

    reproduce.csv, the null's table, always; without `draws` (section 9.1)
    not nulls.csv and null_hist.csv, which the shards draw."""
    doc = prereg.load(prereg_path)
    prereg.check_amends(doc, prereg_path)
    lb_name, src_name = prereg.table_names(doc, prereg_path)
    lb_path = None if lb_name is None else bundle_path(bundle_dir, lb_name)
    src_path = bundle_path(bundle_dir, src_name)
    for path in (lb_path, src_path):
        if path is not None:
            require_file(path)
    lb_file = None
    if lb_path is not None and lb_path.endswith(".csv"):  # text until its declared types apply
        lb_table = csvtable.read_text_table(lb_path)
    else:
        lb_file = None if lb_path is None else open_parquet(lb_path, layout=False)
        lb_table = None if lb_file is None or lb_path is None else _read(lb_file, lb_path)
    src_file = open_parquet(src_path, layout=False)
    src_kinds = kinds(src_file)

    pr = prereg.validate(doc, prereg_path)
    declared_ranks = ranks.spec(doc, prereg_path, pr)  # bad_prereg (section 17)
    runs_block = pr.runs
    src = pr.source
    board = pr.leaderboard
    src_names = src_file.schema_arrow.names
    if board is not None and lb_table is not None and lb_path is not None:
        checks.missing_column(tables.leaderboard_names(board), lb_table.column_names, lb_path)
    checks.missing_column(tables.source_names(src), src_names, src_path)
    if board is not None and lb_table is not None and lb_path is not None:
        tables.undeclared_column(board, lb_table.column_names, lb_path)
        checks.duplicate_column(lb_table.column_names, lb_path)
    checks.duplicate_column(src_names, src_path)
    text_numbers: frozenset[str] = frozenset()
    if board is not None and lb_table is not None and lb_path is not None:
        if board.column_types is not None:
            lb_table = csvtable.typed(lb_table, board.column_types, lb_path)
            text_numbers = frozenset(
                c for c, kind in board.column_types.items() if kind == "decimal"
            )
        lb_kinds = (  # a CSV's under its declared types, a parquet file's from its footer
            {f.name: checks.type_kind(f.type) for f in lb_table.schema}
            if lb_file is None
            else kinds(lb_file)
        )
        tables.leaderboard_types(board, lb_kinds, lb_path, text_numbers)
    tables.source_types(src, src_kinds, src_path)
    optional = [c for c in tables.OPTIONAL_TRIAL_COLUMNS if src.kind == "trials" and c in src_names]
    src_table = _read(src_file, src_path, tables.source_names(src) + optional)

    # bad_key, then duplicate_key (leaderboard, then source); unknown_row; bad_value
    lb_ids: list[str] = []
    if board is not None and lb_table is not None and lb_path is not None:
        lb_ids = tables.joined(tables.key_values(lb_table, board.row_key, lb_path, bar=True))
    if src.kind == "registry":
        entries = tables.joined(tables.key_values(src_table, src.entry, src_path, bar=True))
        tasks = tables.key_values(src_table, (src.task,), src_path, bar=False)[0]
        src_keys: list[object] = list(zip(entries, tasks))
        what = "(entry, task)"
    else:
        trial_keys = tables.key_values(
            src_table, ("run", "task", "trial_id", "copy"), src_path, bar=False
        )
        src_keys = list(zip(*trial_keys))
        what = "(run, task, trial_id, copy)"
    lb_data = None
    if board is not None and lb_table is not None and lb_path is not None:
        tables.no_duplicates(lb_ids, lb_path, "row id")
    tables.no_duplicates(src_keys, src_path, what)
    if board is not None and lb_table is not None and lb_path is not None:
        lb_data = tables.leaderboard_data(lb_table, lb_ids, text_numbers)
        tables.unknown_rows(pr, lb_data, lb_path)
        lb_data = tables.with_unpublished(lb_data, board)

    per_task: dict[tuple[str, str], list[TaskValue]] = {}
    registry = None
    if src.kind == "registry":
        cells = tables.registry_cells(src, src_table, entries, tasks, src_path)
        registry = (src.score_scale, src.score_decimals)
        for entry, ecells in registry_entries(cells).items():
            for pname, pol in pr.policies.items():
                per_task[(entry, pname)] = [registry_task(c, pol, src) for c in ecells]
    else:
        rows = tables.trial_rows(src_table, trial_keys, src_path)
        entries = trial_entries(rows)
        leaving = {n: tasks_left_by_broken_verifiers(entries, p) for n, p in pr.policies.items()}
        for run, by_task in entries.items():
            for pname, pol in pr.policies.items():
                per_task[(run, pname)] = [
                    trial_task(t, trs, pol, t in leaving[pname]) for t, trs in by_task.items()
                ]

    stream = BootStream(pr.seed, pr.bootstrap_draws)
    stats: dict[tuple[str, str], EntryStats] = {}
    for (entry, pname), tvals in per_task.items():
        stats[(entry, pname)] = entry_stats(entry, pname, tvals, pr.scale, stream, registry)

    runs_out: list[list[str]] = []
    pk_out: list[list[str]] = []
    over_runs: dict[str, dict[str, dict[str, float | None]]] = {}
    if runs_block is not None and src.kind != "registry":
        names = [
            n
            for n in ("run", "task", "copy", "status", "reward", "tb_run", "attempt")
            if n in src_names
        ]
        runs_out, pk_out, over_runs = overruns.compute(
            _read(src_file, src_path, names),
            rows,
            leaving,
            pr.policies,
            runs_block,
            pr.scale,
        )
    pk_task_rows: list[list[str]] = []
    tries_values: tries.TriesValues = {}
    if src.kind != "registry":  # section 16.5
        pk_task_rows, tries_values = tries.compute(
            tries.table_of(per_task), tries.ks_of(board), pr.scale
        )
    if board is not None and lb_data is not None:
        judged, pubs = judge(board, lb_data, stats, over_runs, tries_values)
        cells_out = cells_rows(board, lb_data, judged)
        census_out = census_rows(board, lb_data, judged, pubs)
        rec_out, rec_rows_out = recovery_rows(board, lb_data, judged, pubs)
        table_out = reproduce_rows(board, lb_data, pubs, stats, over_runs, tries_values)
        null_out, hist_out = (
            nulls_rows(
                board, lb_data, judged, pubs, stats, pr.seed, pr.null_draws, over_runs, tries_values
            )
            if draws
            else ([], [])
        )
    else:
        cells_out, census_out, rec_out, rec_rows_out, null_out, hist_out = [], [], [], [], [], []
        table_out = []
    rank_files = {}
    if declared_ranks is not None and lb_data is not None:  # section 17: declared only
        pair_rows, rank_rows = ranks.rows(*declared_ranks, lb_data, per_task)
        rank_files = {
            "rank_pairs.csv": text_table(ranks.census.PAIRS_HEADER, pair_rows),
            "ranks.csv": text_table(ranks.census.ROWS_HEADER, rank_rows),
        }
    null_files = {"reproduce.csv": text_table(REPRODUCE_HEADER, table_out)} | (
        {
            "nulls.csv": text_table(NULLS_HEADER, null_out),
            "null_hist.csv": text_table(HIST_HEADER, hist_out),
        }
        if draws
        else {}
    )
    return outputs.files(
        {
            "tasks.csv": outputs.tasks_table(per_task),
            "entries.csv": outputs.entries_table(stats),
            "cells.csv": text_table(CELLS_HEADER, cells_out),
            "census.csv": text_table(CENSUS_HEADER, census_out),
            "recovery.csv": text_table(RECOVERY_HEADER, rec_out),
            "recovery_rows.csv": text_table(RECOVERY_ROWS_HEADER, rec_rows_out),
            **null_files,
            "runs.csv": text_table(overruns.RUNS_HEADER, runs_out),
            "pass_k.csv": text_table(overruns.PASSK_HEADER, pk_out),
            "pass_k_tasks.csv": text_table(tries.HEADER, pk_task_rows),
            **rank_files,
        }
    )


def run(prereg_path: str, bundle_dir: str, out_dir: str, draws: bool = True) -> None:
    """Compute everything, then write the files of section 9 (9.1 without draws) into OUT_DIR."""
    files = compute(prereg_path, bundle_dir, draws)
    write_outputs(out_dir, files)
