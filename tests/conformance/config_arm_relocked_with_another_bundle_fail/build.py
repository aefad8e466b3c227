"""Builds the config_arm_relocked_with_another_bundle_fail case from the demo bundle."""

from __future__ import annotations

import shutil

import polars as pl


def build(ws) -> None:
    ws.make_ledger()  # results/demo/lock/lock.json: the arm demo, locked on bundle/
    other = ws.dir / "other"
    shutil.copytree(ws.dir / "bundle", other)
    path = other / "instances.parquet"
    df = pl.read_parquet(path)
    df.with_columns(pl.col("cost") * 2).write_parquet(path)
    ws.config["prereg"] = "prereg.yaml"
    ws.config["bundle"] = "other"
