"""Build a perturbed bundle from a stamped selection."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import blake3
import polars as pl

from controls import select
from controls.predict import ControlError

SEP = "\x1f"


def file_blake3(path: str | Path) -> str:
    return blake3.blake3(Path(path).read_bytes()).hexdigest()


def check_stamp(stamp: str, files: list[str]) -> None:
    """Refuse files whose bytes differ from what the ledger stamped."""
    stamped = {r["subject"]: r["blake3"] for r in json.loads(Path(stamp).read_text())["stamped"]}
    for f in files:
        if f not in stamped:
            raise ControlError(f"{f}: was never stamped in the ledger ({stamp})")
        if file_blake3(f) != stamped[f]:
            raise ControlError(
                f"{f}: changed after it was stamped (blake3 now {file_blake3(f)}, "
                f"stamped {stamped[f]})"
            )


def _key_expr(cols: list[str]) -> pl.Expr:
    return pl.concat_str([pl.col(c).cast(pl.String) for c in cols], separator=SEP)


def perturb(doc: dict, bundle: str, selection_path: str, out_dir: str) -> list[str]:
    """Write the perturbed bundle; return the paths written."""
    sel = json.loads(Path(selection_path).read_text())
    b = doc["bundle"]
    inst = pl.read_parquet(Path(bundle) / b["instances"])
    kind = sel["kind"]
    if kind in ("flip", "shift"):
        chosen = [SEP.join(k) for k in sel["instances"]]
        hit = _key_expr(b["instance_key"]).is_in(chosen)
        src = sel["source"]
        new = pl.lit(False) if kind == "flip" else pl.col(src) + pl.lit(float(sel["size"]))
        inst = inst.with_columns(pl.when(hit).then(new).otherwise(pl.col(src)).alias(src))
        if inst.filter(hit).height != len(chosen):
            raise ControlError(f"{selection_path}: selected instances not found in the bundle")
    elif kind == "swap":
        a, c = sel["row_ids"]
        rid = pl.col(b["row_id"])
        inst = inst.with_columns(
            pl.when(rid == a)
            .then(pl.lit(c))
            .when(rid == c)
            .then(pl.lit(a))
            .otherwise(rid)
            .alias(b["row_id"])
        )
    elif kind == "reorder":
        order = select.order(doc["seed"], sel["control"], select.ROWS, inst.height)
        inst = inst[order]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(Path(bundle) / b["leaderboard"], out / b["leaderboard"])
    tmp = out / f".{b['instances']}.tmp"
    inst.write_parquet(tmp, compression="zstd", statistics=False)
    tmp.replace(out / b["instances"])
    return [str(out / b["leaderboard"]), str(out / b["instances"])]
