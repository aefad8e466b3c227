"""Builds the prereg_not_yaml_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.prereg.write_text(
        ws.prereg.read_text(encoding="utf-8") + "\nbroken: [1, 2\n", encoding="utf-8"
    )
