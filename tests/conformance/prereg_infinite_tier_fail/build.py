"""Builds the prereg_infinite_tier_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    assert "[0.005, 0.05]" in text
    ws.prereg.write_text(text.replace("[0.005, 0.05]", "[0.005, 1.0e+999]"), encoding="utf-8")
