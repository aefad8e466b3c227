"""Builds the prereg_float_seed_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    assert "\nseed: 7\n" in text
    ws.prereg.write_text(text.replace("\nseed: 7\n", "\nseed: 7.0\n"), encoding="utf-8")
