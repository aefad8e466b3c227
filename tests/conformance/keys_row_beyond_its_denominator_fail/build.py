"""Builds the keys_row_beyond_its_denominator_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["columns"]["measured"]["alpha_score"]["denominator"] = {"fixed": 1}
    ws.write_prereg(doc)
