"""Builds the config_unknown_option_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["colour"] = "red"
