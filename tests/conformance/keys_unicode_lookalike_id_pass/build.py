"""Builds the keys_unicode_lookalike_id_pass case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    df = ws.instances()
    lookalike = "d\u0435mo/m1"  # Cyrillic small ie, not Latin e
    ws.write_instances(
        df.with_columns(pl.col("id").str.replace("demo/m1", lookalike, literal=True))
    )
