"""Builds the bundle_decompression_bomb_fail case: a parquet page that inflates 230-fold."""

from __future__ import annotations

from tests.parquet_bomb import bomb


def build(ws) -> None:
    bomb(ws.instances_file, 64 << 20)  # 512 MiB once decompressed (tests/test_read_bounds.py)
    ws.config["bundle"] = "bundle"
