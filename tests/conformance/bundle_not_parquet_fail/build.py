"""Builds the bundle_not_parquet_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.instances().write_csv(ws.instances_file)
