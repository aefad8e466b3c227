"""Builds the keys_two_models_for_one_id_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    hit = (pl.col("id") == "demo/m1") & (pl.col("instance_id") == "alpha-00")
    ws.write_instances(
        df.with_columns(
            pl.when(hit).then(pl.lit("m1-large")).otherwise(pl.col("model")).alias("model")
        )
    )
    # snakemake -n on this bundle: refused while the workflow is read (audit/preflight.py)
    ws.config["bundle"] = "bundle"
