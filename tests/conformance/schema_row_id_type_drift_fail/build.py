"""Builds the schema_row_id_type_drift_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    lb = ws.leaderboard().with_columns(pl.col("id").str.slice(6).cast(pl.Int64))  # demo/m1 -> 1
    ws.write_leaderboard(lb)
    ws.write_instances(ws.instances().with_columns(pl.col("id").str.slice(6)))  # "1"
