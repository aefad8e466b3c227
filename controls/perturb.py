"""Build a perturbed bundle from a stamped selection."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

import polars as pl

from audit.bundles import parquet_stored
from audit.cells.record import Prereg
from controls import keys, select
from controls.errors import ControlError
from controls.keys import RowIds


def _chosen(doc: Prereg, where: str, inst: pl.DataFrame, sel: dict, ids: RowIds) -> pl.Expr:
    """True on the selection's instance rows: those of its row and group whose instance
    key's texts are chosen ones, the row and the texts found as the choice names them
    (controls/keys.py). Each chosen key is found once: the choice took them from these
    rows, whose keys are unique (docs/contract.md, duplicate_key); anything else is a
    fault of the controls, not of the input."""
    b = doc.bundle
    cols = list(b.instance_key)
    grouped = keys.in_group(b.group_by, inst.schema[b.group_by], sel["group"])
    part = (
        inst.lazy()
        .with_row_index("_at")
        .filter(ids.is_row(sel["row_id"], b.row_id) & grouped)
        .select("_at", *cols)
        .collect()
    )
    at = part.get_column("_at").gather(keys.positions(part, cols, sel["instances"]))
    if at.len() != len(sel["instances"]):
        raise ControlError(
            f"{where}: the selected instances are not found once each in the bundle the"
            " choice read: a fault of the controls (the choice and the perturbation find"
            " keys alike, controls/keys.py), not of the input"
        )
    return pl.int_range(pl.len(), dtype=at.dtype).is_in(at.implode())


def reader(doc: Prereg, bundle: str) -> Callable[[], pl.DataFrame]:
    """The unperturbed instance table, read at the first call and kept for the next
    (every control of a run perturbs the same table; polars frames are not changed
    in place, so each control starts from the table as read). A column of kind integer
    is read as the integers the file stores, where polars reads one otherwise (an Arrow
    duration: audit/bundles/parquet_stored.py), and so written back: a plain INT64, as
    the file holds it, never a duration in seconds written in milliseconds."""
    return cache(partial(parquet_stored.read, Path(bundle) / doc.bundle.instances))


def _carry(doc: Prereg, bundle: str, out: Path) -> None:
    """The bundle's universe tables (docs/contract.md, Recipes) as they are: a perturbed
    bundle changes instance rows, never the universe they are held to."""
    for name in dict.fromkeys(f for _, f, _ in doc.universe_tables()):
        tmp = out / f".{name}.tmp"
        shutil.copyfile(Path(bundle) / name, tmp)
        tmp.replace(out / name)


def perturb(
    doc: Prereg,
    bundle: str,
    selection_path: str,
    out_dir: str,
    table: Callable[[], pl.DataFrame] | None = None,
) -> list[str]:
    """Write the perturbed bundle; return the paths written. ``table``: the unperturbed
    instance table (``reader``), read here if not given."""
    sel = json.loads(Path(selection_path).read_text())
    b = doc.bundle
    out = Path(out_dir)
    if "skipped" in sel:  # nothing to perturb: the control's bundle is the unperturbed one
        out.mkdir(parents=True, exist_ok=True)
        for role in ("leaderboard", "instances"):
            tmp = out / f".{b.table(role)}.tmp"
            shutil.copyfile(Path(bundle) / b.table(role), tmp)
            tmp.replace(out / b.table(role))
        _carry(doc, bundle, out)
        return [str(out / b.leaderboard), str(out / b.instances)]
    inst = (table or reader(doc, bundle))()
    kind = sel["kind"]
    ids = RowIds(parquet_stored.read(Path(bundle) / b.leaderboard, [b.row_id]).to_series())
    if kind in ("flip", "shift", "nullify"):
        hit = _chosen(doc, selection_path, inst, sel, ids)
        src = sel["source"]
        if kind == "flip":
            new = pl.lit(False)
        elif kind == "shift":
            new = pl.col(src) + pl.lit(float(sel["size"]))
        else:  # nullify: the value becomes null, the column keeps its type
            new = pl.lit(None, dtype=inst.schema[src])
        inst = inst.with_columns(pl.when(hit).then(new).otherwise(pl.col(src)).alias(src))
    elif kind == "swap":  # the two rows' ids, as values of the column's own type
        a, c = sel["row_ids"]
        rid = pl.col(b.row_id)
        inst = inst.with_columns(
            pl.when(ids.is_row(a, b.row_id))
            .then(ids.value(c))
            .when(ids.is_row(c, b.row_id))
            .then(ids.value(a))
            .otherwise(rid)
            .cast(inst.schema[b.row_id])
            .alias(b.row_id)
        )
    elif kind == "reorder":
        keys = pl.Series(
            "key", memoryview(select.stream_keys(doc.seed, sel["control"], inst.height))
        )
        order = keys.to_frame().with_row_index("i").sort("key", "i").get_column("i")  # by (key, i)
        del keys
        # one column at a time, each original freed as its reordered copy is made,
        # so the peak holds the table once plus one column
        columns = inst.get_columns()
        del inst
        for i, col in enumerate(columns):
            columns[i] = col.rechunk().gather(order)  # one chunk: a gather across 100 is slow
            del col
        inst = pl.DataFrame(columns)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(bundle) / b.leaderboard, out / b.leaderboard)
    tmp = out / f".{b.instances}.tmp"
    # zstd like the bundles polars writes, at its fastest level: the copy is read once
    inst.write_parquet(tmp, compression="zstd", compression_level=1, statistics=False)
    tmp.replace(out / b.instances)
    _carry(doc, bundle, out)
    return [str(out / b.leaderboard), str(out / b.instances)]
