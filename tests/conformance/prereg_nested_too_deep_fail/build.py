"""Builds the prereg_nested_too_deep_fail case from the demo bundle."""

from __future__ import annotations

from audit.files import file_blake3


def build(ws) -> None:
    text = ws.prereg.read_text(encoding="utf-8")
    ws.prereg.write_text(text + "deep: " + "[" * 2000 + "]" * 2000 + "\n", encoding="utf-8")
    # snakemake -n reads this prereg (its blake3 matching the config's): the workflow
    # refuses it while it is read, before any job
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
