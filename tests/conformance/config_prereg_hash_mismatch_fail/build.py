"""Builds the config_prereg_hash_mismatch_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["prereg_blake3"] = "ab" * 32
