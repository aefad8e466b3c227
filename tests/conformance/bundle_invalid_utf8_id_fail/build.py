"""Builds the bundle_invalid_utf8_id_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl

MARK = "demo/m\x01"  # one byte, swapped for 0xff (never UTF-8) in the written file


def build(ws) -> None:
    inst = ws.instances()
    first = inst["id"][0]
    inst = inst.with_columns(
        pl.when(pl.col("id") == first).then(pl.lit(MARK)).otherwise(pl.col("id")).alias("id")
    )
    inst.write_parquet(ws.instances_file, compression="uncompressed", statistics=False)
    data = ws.instances_file.read_bytes()
    assert MARK.encode() in data
    ws.instances_file.write_bytes(data.replace(MARK.encode(), b"demo/m\xff"))
    # snakemake -n on this bundle: refused while the workflow is read (audit/preflight.py)
    ws.config["bundle"] = "bundle"
