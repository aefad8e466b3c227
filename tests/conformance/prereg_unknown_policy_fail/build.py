"""Builds the prereg_unknown_policy_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["columns"]["measured"]["alpha_score"]["policies"] = ["A", "Z"]
    ws.write_prereg(doc)
