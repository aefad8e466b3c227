"""The whole recompute, checks in the contract's order, outputs written last."""

from __future__ import annotations

from . import checks, prereg
from .aggregate import aggregate
from .cells import CELLS_HEADER, CENSUS_HEADER, cells_rows, census_rows, judge, leaderboard
from .nulls import HIST_HEADER, NULLS_HEADER, nulls_rows
from .read import bundle_path, open_parquet, read_all, read_columns, require_file
from .recipes import recompute
from .write import render_csv, write_outputs


def compute(prereg_path: str, bundle_dir: str) -> dict[str, bytes]:
    """The three output files' bytes; raises InputError on unusable input."""
    # missing_file and unreadable: prereg, then leaderboard, then instances
    doc = prereg.load(prereg_path)
    lb_name, in_name = prereg.bundle_files(doc, prereg_path)
    lb_path = bundle_path(bundle_dir, lb_name)
    in_path = bundle_path(bundle_dir, in_name)
    require_file(lb_path)
    require_file(in_path)
    lb_table = read_all(open_parquet(lb_path), lb_path)
    in_file = open_parquet(in_path)

    pr = prereg.validate(doc, prereg_path)

    lb_names = lb_table.column_names
    in_names = in_file.schema_arrow.names
    checks.missing_column(checks.leaderboard_names(pr), lb_names, lb_path)
    checks.missing_column(checks.instance_names(pr), in_names, in_path)
    checks.undeclared_column(pr, lb_names, lb_path)
    checks.duplicate_column(lb_names, lb_path)
    checks.duplicate_column(in_names, in_path)

    instances = read_columns(in_path, checks.instance_names(pr))
    lb_ids = lb_table.column(pr.row_id).to_pylist()
    checks.duplicate_row_id(lb_ids, lb_table.schema.field(pr.row_id).type, lb_path)
    checks.duplicate_instance_key(instances, pr.instance_key, in_path)
    checks.leaderboard_types(pr, lb_table.schema, lb_path)
    checks.row_id_kinds(pr, lb_table.schema, instances.schema, in_path)
    checks.instance_types(pr, instances, in_path)
    instances = instances.select(checks.aggregation_names(pr))  # frees key-only columns

    lb = leaderboard(lb_table, pr.row_id)
    groups = aggregate(pr, instances)
    source_types = {f.name: f.type for f in instances.schema}
    rec = recompute(pr, groups, lb.row_ids, lb.row_shown, source_types, in_path)
    judged = judge(pr, lb, rec)
    null_rows, hist_rows = nulls_rows(pr, lb, rec, judged)
    return {
        "cells.csv": render_csv(CELLS_HEADER, cells_rows(pr, lb, judged)),
        "census.csv": render_csv(CENSUS_HEADER, census_rows(pr, lb, judged)),
        "nulls.csv": render_csv(NULLS_HEADER, null_rows),
        "null_hist.csv": render_csv(HIST_HEADER, hist_rows),
    }


def run(prereg_path: str, bundle_dir: str, out_dir: str) -> None:
    """Compute everything, then write OUT_DIR/{cells,census,nulls,null_hist}.csv."""
    files = compute(prereg_path, bundle_dir)
    write_outputs(out_dir, files)
