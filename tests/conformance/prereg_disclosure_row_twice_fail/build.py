"""Builds the prereg_disclosure_row_twice_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["disclosure"]["relations"] = [
        {"row": "demo/m2", "relation": "the auditor's own agent"},
        {"row": "demo/m2", "relation": "the auditor's employer"},
    ]
    ws.write_prereg(doc)
