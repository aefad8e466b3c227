"""Builds the prereg_nan_tier_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["tolerances"]["cost"]["tiers"] = [float("nan")]
    ws.write_prereg(doc)
