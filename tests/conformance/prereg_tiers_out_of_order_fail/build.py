"""Builds the prereg_tiers_out_of_order_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["tolerances"]["score"]["tiers"] = [0.5, 0.05]
    ws.write_prereg(doc)
