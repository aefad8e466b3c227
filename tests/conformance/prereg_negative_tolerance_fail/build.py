"""Builds the prereg_negative_tolerance_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["tolerances"]["score"]["tiers"] = [-0.05, 0.5]
    ws.write_prereg(doc)
