"""Builds the keys_instance_outside_its_universe_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    ids = ws.instances().filter(pl.col("group") == "alpha").get_column("instance_id")
    universe = sorted(set(ids.to_list()) - {"alpha-00"}) + ["alpha-99"]
    doc = ws.prereg_doc()
    doc["columns"]["measured"]["alpha_score"]["denominator"] = {
        "universe": {"column": "instance_id", "ids": universe, "missing": "as_null"}
    }
    ws.write_prereg(doc)
