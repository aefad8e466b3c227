"""Builds the prereg_unknown_key_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["defaults"] = {"nulls": "exclude"}
    ws.write_prereg(doc)
