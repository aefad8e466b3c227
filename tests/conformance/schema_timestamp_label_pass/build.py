"""Builds the schema_timestamp_label_pass case from the demo bundle."""

from __future__ import annotations

import datetime

import polars as pl


def build(ws) -> None:
    board = ws.leaderboard()
    released = pl.lit(datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)).alias("released")
    ws.write_leaderboard(board.with_columns(released))
    doc = ws.prereg_doc()
    doc["columns"]["no_antecedent"].append("released")
    ws.write_prereg(doc)
