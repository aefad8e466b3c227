"""Builds the schema_infinite_cost_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    hit = (pl.col("id") == "demo/m2") & (pl.col("instance_id") == "alpha-01")
    ws.write_instances(
        df.with_columns(pl.when(hit).then(float("inf")).otherwise(pl.col("cost")).alias("cost"))
    )
    # snakemake -n on this bundle: refused while the workflow is read (audit/preflight.py)
    ws.config["bundle"] = "bundle"
