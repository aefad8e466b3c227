"""Builds the config_prereg_missing_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["prereg"] = "prereg/none.yaml"
