"""Builds the bundle_declared_bomb_fail case: a page that inflates 230-fold, declared."""

from __future__ import annotations

from tests.parquet_bomb import bomb


def build(ws) -> None:
    bomb(ws.instances_file, 64 << 20, honest_footer=True)  # 512 MiB, the footer says so
    ws.config["bundle"] = "bundle"
