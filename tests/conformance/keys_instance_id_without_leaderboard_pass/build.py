"""Builds the keys_instance_id_without_leaderboard_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    orphans = df.filter(pl.col("id") == "demo/m4").with_columns(pl.lit("demo/m9").alias("id"))
    ws.write_instances(pl.concat([df, orphans]))
