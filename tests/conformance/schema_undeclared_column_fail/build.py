"""Builds the schema_undeclared_column_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    ws.write_leaderboard(ws.leaderboard().with_columns(pl.lit(1.0).alias("gamma_score")))
