"""Builds the schema_missing_column_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.write_leaderboard(ws.leaderboard().drop("alpha_cost"))
