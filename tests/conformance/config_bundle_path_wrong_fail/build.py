"""Builds the config_bundle_path_wrong_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["bundle"] = "no-such-bundle"
