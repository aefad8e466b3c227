"""Builds the prereg_missing_key_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    del doc["rounding"]
    ws.write_prereg(doc)
