"""Builds the prereg_ranks_mean_of_columns_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    assert "\nseed: 7\n" in text
    declared = (
        "\nranks: {columns: [average_cost], alpha: 0.05, correction: holm, seed: 1, draws: 10}\n"
        "seed: 7\n"
    )
    ws.prereg.write_text(text.replace("\nseed: 7\n", declared), encoding="utf-8")
