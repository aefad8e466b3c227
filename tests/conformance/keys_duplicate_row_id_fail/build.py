"""Builds the keys_duplicate_row_id_fail case from the demo bundle."""

from __future__ import annotations

import polars as pl


def build(ws) -> None:
    lb = ws.leaderboard()
    ws.write_leaderboard(pl.concat([lb, lb.head(1)]))
    # snakemake -n on this bundle: refused while the workflow is read (audit/preflight.py)
    ws.config["bundle"] = "bundle"
