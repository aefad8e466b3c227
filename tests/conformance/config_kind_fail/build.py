"""Builds the config_kind_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["kind"] = "trials"
