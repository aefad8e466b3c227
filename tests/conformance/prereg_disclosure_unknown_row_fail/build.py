"""Builds the prereg_disclosure_unknown_row_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["disclosure"]["relations"] = [{"row": "demo/m9", "relation": "the auditor's own agent"}]
    ws.write_prereg(doc)
