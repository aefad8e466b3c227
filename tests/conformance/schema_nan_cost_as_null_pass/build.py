"""Builds the schema_nan_cost_as_null_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    ws.write_instances(df.with_columns(pl.col("cost").fill_null(float("nan"))))
