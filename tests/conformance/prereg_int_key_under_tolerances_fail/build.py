"""Builds the prereg_int_key_under_tolerances_fail case from the demo bundle."""

from __future__ import annotations

from audit.files import file_blake3


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    new = "tolerances:\n  1: {exact_decimals: 1, tiers: [0.5]}\n"
    ws.prereg.write_text(text.replace("tolerances:\n", new, 1), encoding="utf-8")
    # snakemake -n reads this prereg (its blake3 matching the config's): the workflow
    # refuses it while it is read, before any job
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
