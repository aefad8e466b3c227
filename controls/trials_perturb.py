"""Build a trial control's perturbed table from its stamped selection."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl

from controls.trials_predict import apply

KEY = ["run", "task", "trial_id", "copy"]  # the trial table's order (trials contract 2.5)


def perturb(doc: dict, table: str, selection_path: str, out_dir: str) -> list[str]:
    """Write ``out_dir/trials.parquet`` (and a copy of the leaderboard, if the prereg has
    one beside the table); return the paths written."""
    sel = json.loads(Path(selection_path).read_text(encoding="utf-8"))
    frame = pl.read_parquet(table)
    rows = apply(frame.to_dicts(), sel)  # every column, the same edit the prediction made
    out_frame = pl.from_dicts(rows, schema=frame.schema).sort(KEY)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    board = doc.get("leaderboard")
    if board:
        src = Path(table).parent / board["table"]
        shutil.copyfile(src, out / board["table"])
        written.append(str(out / board["table"]))
    name = doc["source"]["table"]
    tmp = out / f".{name}.tmp"
    out_frame.write_parquet(tmp, statistics=False)
    tmp.replace(out / name)
    return [*written, str(out / name)]
