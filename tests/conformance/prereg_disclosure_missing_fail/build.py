"""Builds the prereg_disclosure_missing_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    del doc["disclosure"]
    ws.write_prereg(doc)
