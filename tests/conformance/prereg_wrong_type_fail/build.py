"""Builds the prereg_wrong_type_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["null_draws"] = "200"
    ws.write_prereg(doc)
