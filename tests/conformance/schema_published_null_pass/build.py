"""Builds the schema_published_null_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    lb = ws.leaderboard()
    hit = pl.col("id") == "demo/m1"
    ws.write_leaderboard(
        lb.with_columns(
            pl.when(hit).then(None).otherwise(pl.col("alpha_score")).alias("alpha_score")
        )
    )
