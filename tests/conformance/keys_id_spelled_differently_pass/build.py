"""Builds the keys_id_spelled_differently_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    ws.write_instances(
        df.with_columns(pl.col("id").str.replace("demo/m1", "demo-m1", literal=True))
    )
