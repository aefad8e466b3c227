"""Builds the prereg_draft_run_undecided_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["seed"] = "UNDECIDED"  # audit/cells/draft_prereg.py's placeholder
    doc["undecided"] = {"instances.parquet": {"cost": "double"}}
    ws.write_prereg(doc)
    ws.config.update(prereg="prereg.yaml", bundle="bundle")
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
