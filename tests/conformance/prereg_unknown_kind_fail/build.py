"""Builds the prereg_unknown_kind_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["kind"] = "leaderboard"
    ws.write_prereg(doc)
