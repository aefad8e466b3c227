"""Builds the keys_leaderboard_id_without_instances_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    lb = ws.leaderboard()
    ws.write_leaderboard(pl.concat([lb, lb.tail(1).with_columns(pl.lit("demo/m5").alias("id"))]))
