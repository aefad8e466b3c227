"""Builds the prereg_float_null_draws_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    assert "\nnull_draws: 200\n" in text
    ws.prereg.write_text(
        text.replace("\nnull_draws: 200\n", "\nnull_draws: 200.0\n"), encoding="utf-8"
    )
