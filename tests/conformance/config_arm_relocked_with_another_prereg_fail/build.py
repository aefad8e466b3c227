"""Builds the config_arm_relocked_with_another_prereg_fail case from the demo bundle."""

from __future__ import annotations

import blake3


def build(ws) -> None:
    ws.make_ledger()  # results/demo/lock/lock.json: the arm demo, locked to prereg.yaml
    text = ws.prereg.read_text(encoding="utf-8")
    assert "seed: 7\n" in text
    ws.prereg.write_text(text.replace("seed: 7\n", "seed: 8\n"), encoding="utf-8")
    ws.config["prereg"] = "prereg.yaml"
    ws.config["bundle"] = "bundle"
    ws.config["prereg_blake3"] = blake3.blake3(ws.prereg.read_bytes()).hexdigest()
