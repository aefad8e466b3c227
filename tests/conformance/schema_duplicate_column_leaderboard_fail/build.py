"""Builds the schema_duplicate_column_leaderboard_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.duplicate_column(ws.leaderboard_file, "runtime")
