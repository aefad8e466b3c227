"""Builds the keys_duplicate_instance_key_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    ws.write_instances(pl.concat([df, df.tail(1)]))
    # snakemake -n on this bundle: refused while the workflow is read (audit/preflight.py)
    ws.config["bundle"] = "bundle"
