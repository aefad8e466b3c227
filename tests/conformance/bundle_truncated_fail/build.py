"""Builds the bundle_truncated_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    data = ws.leaderboard_file.read_bytes()
    ws.leaderboard_file.write_bytes(data[: len(data) // 2])
