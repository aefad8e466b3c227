"""Builds the config_bad_value_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["seat"] = "third"
