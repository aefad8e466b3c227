"""Builds the keys_row_beyond_its_denominator_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["columns"]["measured"]["alpha_score"]["denominator"] = {"fixed": 1}
    ws.write_prereg(doc)
    # snakemake -n on this prereg and bundle: refused while the workflow is read
    # (audit/preflight.py)
    ws.config.update(prereg="prereg.yaml", bundle="bundle")
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
