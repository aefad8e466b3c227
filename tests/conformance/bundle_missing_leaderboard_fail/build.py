"""Builds the bundle_missing_leaderboard_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.leaderboard_file.unlink()
