"""The whole recompute: checks in the contract's order, recipes, tiers, the null."""

from __future__ import annotations

import os

from . import cells, chance, checks, feasibility, instances, nulls, ranks, read, recipes, universe
from .prereg import leaderboard as prereg_mod
from .prereg import load_document
from .values import format_value
from .write import render

CELLS = "cells.csv"
CENSUS = "census.csv"
REPRODUCE = "reproduce.csv"
CHANCE = "chance.csv"
NULLS = "nulls.csv"
HIST = "null_hist.csv"
FEASIBILITY = "feasibility.csv"
RANK_PAIRS = "rank_pairs.csv"
RANKS = "ranks.csv"


def run(prereg_path: str, bundle_dir: str, draws: bool = True) -> dict[str, bytes]:
    """Compute the output files (bytes); InputError on unusable input.

    Without `draws`, only cells.csv, census.csv, reproduce.csv and chance.csv (the null's
    draws are left to the shard commands, shards.py).

    Classes are checked in the contract's table order; within a class, files in
    the order prereg, leaderboard, instances."""
    doc = load_document(prereg_path)  # missing_file, unreadable (prereg)
    paths = [
        None if name is None else os.path.join(bundle_dir, name)
        for name in (
            prereg_mod.bundle_file(doc, "leaderboard"),
            prereg_mod.bundle_file(doc, "instances"),
        )
    ]
    for path in paths:  # missing_file
        if path is not None:
            read.require_file(path, path)
    # unreadable; the instance table's data is read later, only the columns the prereg names
    loaders = (read.load_table, read.load_schema)
    tables = [None if path is None else load(path, path) for load, path in zip(loaders, paths)]
    pre = prereg_mod.parse(doc, prereg_path)  # bad_prereg (also an unusable bundle file name)
    declared_ranks = ranks.parse(doc, prereg_path, pre.measured)  # bad_prereg
    board, inst = tables
    assert board is not None and inst is not None

    checks.missing_columns(board, checks.leaderboard_names(pre))  # missing_column
    checks.missing_columns(inst, checks.instance_names(pre))
    checks.undeclared_columns(board, pre.kind_of())  # undeclared_column
    checks.duplicate_columns(board)  # duplicate_column
    checks.duplicate_columns(inst)
    checks.leaderboard_unsupported(board, pre)  # unsupported_type
    checks.instance_unsupported(inst, pre)
    data = instances.load(inst, inst.display, pre)  # unreadable (the instance data pages)
    checks.nan_keys(board, [pre.row_id], "row id")  # bad_type: a NaN is no key
    checks.duplicate_row_ids(board, pre.row_id)  # duplicate_key, as written
    instances.check_duplicate_keys(data, pre)
    checks.leaderboard_types(board, pre)  # bad_type
    feasibility.check_types(board, pre)
    checks.row_id_kinds(board, inst, pre)
    instances.check_types(data, pre)
    pre = universe.resolve(pre, bundle_dir)  # a universe declared as a table: its ids

    assert board.frame is not None
    id_kind = board.kinds[pre.row_id]
    shown_ids = [format_value(v, id_kind) for v in board.frame[pre.row_id].tolist()]
    order = sorted(range(len(shown_ids)), key=lambda i: (shown_ids[i], i))
    recomputed, steps = recipes.recompute(pre, board, data, shown_ids, order)  # ambiguous_value

    judged = {name: cells.judge(col, board, recomputed) for name, col in pre.measured.items()}
    feasible_rows, infeasible = feasibility.build(pre, board, shown_ids, bundle_dir)
    cell_rows, census_rows, classes = cells.build(
        pre, board, shown_ids, judged, frozenset(infeasible)
    )
    tables = {name: jd.table(order) for name, jd in judged.items()}
    for name, table in tables.items():  # the table's diagonal is the census
        assert nulls.observed(table) == classes[name].count("reproduced"), name
    canonical_ids = [shown_ids[i] for i in order]
    files = {
        CELLS: render(cells.CELLS_HEADER, cell_rows),
        CENSUS: render(cells.CENSUS_HEADER, census_rows),
        REPRODUCE: render(nulls.REPRODUCE_HEADER, nulls.reproduce_rows(tables, canonical_ids)),
        CHANCE: render(chance.CHANCE_HEADER, chance.rows(judged, steps, pre.chance)),
    }
    if pre.feasibility:  # declared: docs/contract.md, Feasibility
        files[FEASIBILITY] = render(feasibility.HEADER, feasible_rows)
    if declared_ranks is not None:  # declared: docs/contract.md, Ranks
        pair_rows, rank_rows = ranks.build(pre, board, shown_ids, declared_ranks, bundle_dir)
        files[RANK_PAIRS] = render(ranks.PAIRS_HEADER, pair_rows)
        files[RANKS] = render(ranks.ROWS_HEADER, rank_rows)
    if draws:
        null_rows, hist_rows = nulls.build(tables, pre.seed, pre.null_draws)
        files[NULLS] = render(nulls.NULLS_HEADER, null_rows)
        files[HIST] = render(nulls.HIST_HEADER, hist_rows)
    return files
