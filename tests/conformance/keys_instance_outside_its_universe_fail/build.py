"""Builds the keys_instance_outside_its_universe_fail case from the demo bundle."""

from __future__ import annotations

import blake3
import polars as pl


def build(ws) -> None:
    ids = ws.instances().filter(pl.col("group") == "alpha").get_column("instance_id")
    universe = sorted(set(ids.to_list()) - {"alpha-00"}) + ["alpha-99"]
    doc = ws.prereg_doc()
    doc["columns"]["measured"]["alpha_score"]["denominator"] = {
        "universe": {"column": "instance_id", "ids": universe, "missing": "as_null"}
    }
    ws.write_prereg(doc)
    # snakemake -n on this prereg and bundle: refused while the workflow is read
    # (audit/preflight.py)
    ws.config.update(prereg="prereg.yaml", bundle="bundle")
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
