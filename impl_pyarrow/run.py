"""The whole recompute, checks in the contract's order, outputs written last."""

from __future__ import annotations

from . import checks
from .aggregate import aggregate
from .cells import CELLS_HEADER, CENSUS_HEADER, cells_rows, census_rows, judge, leaderboard
from .chance import CHANCE_HEADER, chance_rows
from .feasibility import HEADER as FEASIBILITY_HEADER
from .feasibility import check_types as feasibility_types
from .feasibility import feasibility_rows
from .nullcount import HIST_HEADER, NULLS_HEADER, REPRODUCE_HEADER
from .nulls import column_masks, nulls_rows, reproduce_rows
from .prereg import cells as prereg
from .ranks import PAIRS_HEADER, ROWS_HEADER, ranks_rows
from .ranks import spec as rank_spec
from .read import (
    bundle_path,
    keys_increasing,
    open_parquet,
    read_all,
    read_columns,
    require_file,
)
from .recipes import recompute
from .schema import kinds
from .universe import with_tables
from .write import render_csv, write_outputs


def compute(prereg_path: str, bundle_dir: str, draws: bool = True) -> dict[str, bytes]:
    """The output files' bytes (without nulls and null_hist if not `draws`).

    Raises InputError on unusable input."""
    # missing_file and unreadable: prereg, then leaderboard, then instances
    doc = prereg.load(prereg_path)
    lb_name, in_name = prereg.bundle_files(doc, prereg_path)
    lb_path = bundle_path(bundle_dir, lb_name)
    in_path = bundle_path(bundle_dir, in_name)
    require_file(lb_path)
    require_file(in_path)
    lb_file = open_parquet(lb_path)
    lb_table = read_all(lb_file, lb_path)
    in_file = open_parquet(in_path)

    pr = prereg.validate(doc, prereg_path)
    ranks = rank_spec(doc, prereg_path, pr.measured)  # bad_prereg (docs/contract.md, Ranks)

    lb_names = lb_file.schema_arrow.names  # every column, also those not read (unsupported_type)
    in_names = in_file.schema_arrow.names
    checks.missing_column(checks.leaderboard_names(pr), lb_names, lb_path)
    checks.missing_column(checks.instance_names(pr), in_names, in_path)
    checks.undeclared_column(pr, lb_names, lb_path)
    checks.duplicate_column(lb_names, lb_path)
    checks.duplicate_column(in_names, in_path)
    checks.unsupported_types(pr, kinds(lb_file), lb_path, kinds(in_file), in_path)

    # Every column the prereg names is read here (unreadable before any later class):
    # the recipes' columns whole, the instance key batch by batch, where rows in
    # strictly increasing key order settle duplicate_key without holding the key;
    # otherwise the key columns are read whole for the general check.
    instances = read_columns(in_path, checks.aggregation_names(pr))
    key_names = list(pr.instance_key)
    keys = (
        None
        if keys_increasing(in_path, key_names)
        else read_columns(in_path, key_names, stored_dictionaries=True)
    )

    lb_ids = lb_table.column(pr.row_id).to_pylist()
    checks.nan_keys({pr.row_id: lb_table.column(pr.row_id)}, "row id", lb_path)
    checks.duplicate_row_id(lb_ids, lb_table.schema.field(pr.row_id).type, lb_path)
    if keys is not None:
        checks.nan_keys({k: keys.column(k) for k in pr.instance_key}, "instance key", in_path)
    if pr.row_id not in pr.instance_key:  # a NaN names no row either (docs/contract.md)
        checks.nan_keys({pr.row_id: instances.column(pr.row_id)}, "row id", in_path)
    if keys is not None:
        checks.duplicate_instance_key(keys, pr.instance_key, in_path)
        del keys
    checks.leaderboard_types(pr, lb_table.schema, lb_path)
    feasibility_types(pr, lb_table.schema, lb_path)
    checks.row_id_kinds(pr, lb_table.schema, instances.schema, in_path)
    checks.instance_types(pr, instances, in_path)
    pr = with_tables(pr, bundle_dir)  # a universe declared as a table: its ids

    lb = leaderboard(lb_table, pr.row_id)
    groups = aggregate(pr, instances)
    source_types = {f.name: f.type for f in instances.schema}
    rec, lattice = recompute(pr, groups, lb.row_ids, lb.row_shown, source_types, in_path)
    judged = judge(pr, lb, rec)
    masks = column_masks(pr, lb, rec)
    feasible, infeasible = feasibility_rows(pr, lb, in_path)
    files = {
        "cells.csv": render_csv(CELLS_HEADER, cells_rows(pr, lb, judged)),
        "census.csv": render_csv(CENSUS_HEADER, census_rows(pr, lb, judged, infeasible)),
        "reproduce.csv": render_csv(REPRODUCE_HEADER, reproduce_rows(lb, masks)),
        "chance.csv": render_csv(CHANCE_HEADER, chance_rows(pr, lb, rec, lattice)),
    }
    if pr.feasibility:  # declared (docs/contract.md, Feasibility)
        files["feasibility.csv"] = render_csv(FEASIBILITY_HEADER, feasible)
    if ranks is not None:  # declared (docs/contract.md, Ranks)
        pair_rows, row_rows = ranks_rows(pr, lb, ranks, in_path)
        files["rank_pairs.csv"] = render_csv(PAIRS_HEADER, pair_rows)
        files["ranks.csv"] = render_csv(ROWS_HEADER, row_rows)
    if draws:
        null_rows, hist_rows = nulls_rows(pr, masks)
        files["nulls.csv"] = render_csv(NULLS_HEADER, null_rows)
        files["null_hist.csv"] = render_csv(HIST_HEADER, hist_rows)
    return files


def run(prereg_path: str, bundle_dir: str, out_dir: str, draws: bool = True) -> None:
    """Compute everything, then write OUT_DIR/{cells,census,reproduce,nulls,null_hist}.csv.

    Without `draws`, only cells, census and reproduce (the null is left to
    null-draws and null-merge)."""
    files = compute(prereg_path, bundle_dir, draws)
    write_outputs(out_dir, files)
