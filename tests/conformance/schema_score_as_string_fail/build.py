"""Builds the schema_score_as_string_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    ws.write_leaderboard(ws.leaderboard().with_columns(pl.col("alpha_score").cast(pl.String)))
