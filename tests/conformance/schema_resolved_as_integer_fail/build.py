"""Builds the schema_resolved_as_integer_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    ws.write_instances(ws.instances().with_columns(pl.col("resolved").cast(pl.Int64)))
