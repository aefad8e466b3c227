"""Builds the prereg_unknown_kind_fail case from the demo bundle."""

from __future__ import annotations

from audit.files import file_blake3


def build(ws) -> None:
    doc = ws.prereg_doc()
    doc["kind"] = "leaderboard"
    ws.write_prereg(doc)
    # snakemake -n reads this prereg (its blake3 matching the config's): the workflow
    # decides the arm's kind from it while it is read, before any job
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
