"""Builds the keys_group_spelled_differently_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    ws.write_instances(df.with_columns(pl.col("group").str.replace("beta", "Beta", literal=True)))
