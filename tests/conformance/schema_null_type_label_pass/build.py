"""Builds the schema_null_type_label_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    board = ws.leaderboard()
    ws.write_leaderboard(board.with_columns(pl.lit(None, dtype=pl.Null).alias("country")))
    doc = ws.prereg_doc()
    doc["columns"]["no_antecedent"].append("country")
    ws.write_prereg(doc)
