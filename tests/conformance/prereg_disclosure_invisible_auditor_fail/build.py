"""Builds the prereg_disclosure_invisible_auditor_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["disclosure"]["auditor"] = "\u200b\u2060\u200d\ufeff\u3164"
    ws.write_prereg(doc)
