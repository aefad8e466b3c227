"""Builds the prereg_disclosure_relations_missing_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    del doc["disclosure"]["relations"]
    ws.write_prereg(doc)
