"""Builds the prereg_int_key_under_controls_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    new = "controls:\n  7: {kind: reorder}\n"
    ws.prereg.write_text(text.replace("controls:\n", new, 1), encoding="utf-8")
