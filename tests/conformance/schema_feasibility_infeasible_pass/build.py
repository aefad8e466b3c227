"""Builds the schema_feasibility_infeasible_pass case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    assert "\nseed: 7\n" in text
    declared = (
        "\nfeasibility:\n"
        "  runtime: {over: 8, scale: 100, scores: [0, 1], decimals: 1, rounding: half_even}\n"
        "seed: 7\n"
    )
    ws.prereg.write_text(text.replace("\nseed: 7\n", declared), encoding="utf-8")
