"""Build a trials-v1 control's perturbed table (trial table or registry) from its stamped
selection."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl

from audit.bundles import parquet_stored
from audit.trials.record import Prereg
from controls import sources

KEY = ["run", "task", "trial_id", "copy"]  # the trial table's order (trials contract 2.5)


def perturb(rec: Prereg, table: str, selection_path: str, out_dir: str) -> list[str]:
    """Write ``out_dir/<the source's table>`` (and a copy of the leaderboard, if the prereg
    has one beside the table); return the paths written."""
    sel = json.loads(Path(selection_path).read_text(encoding="utf-8"))
    frame = parquet_stored.read(table)  # an Arrow duration as the integers stored
    rows = sources.apply(rec, frame.to_dicts(), sel)  # every column, the predicted edit
    out_frame = pl.from_dicts(rows, schema=frame.schema)
    if not sources.is_registry(rec):
        out_frame = out_frame.sort(KEY)  # a registry keeps its rows' order
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    board = rec.leaderboard
    if board:
        src = Path(table).parent / board.table
        shutil.copyfile(src, out / board.table)
        written.append(str(out / board.table))
    name = rec.source.table
    tmp = out / f".{name}.tmp"
    out_frame.write_parquet(tmp, statistics=False)
    tmp.replace(out / name)
    return [*written, str(out / name)]
