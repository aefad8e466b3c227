"""Builds the prereg_disclosure_blank_auditor_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["disclosure"]["auditor"] = "   "
    ws.write_prereg(doc)
