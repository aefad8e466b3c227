"""Builds the schema_huge_costs_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    huge = pl.col("id") == "demo/m2"
    ws.write_instances(
        df.with_columns(pl.when(huge).then(1.7e308).otherwise(pl.col("cost")).alias("cost"))
    )
