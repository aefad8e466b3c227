"""Builds the config_bundle_file_missing_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.instances_file.unlink()
    ws.config["bundle"] = "bundle"
