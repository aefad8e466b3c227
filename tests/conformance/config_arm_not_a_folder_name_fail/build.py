"""Builds the config_arm_not_a_folder_name_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.config["arm"] = "logs"
