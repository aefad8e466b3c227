"""Builds the prereg_trials_pass_k_zero_fail case from the Terminal-Bench prereg."""

from __future__ import annotations

from pathlib import Path

from audit.files import file_blake3


def build(ws) -> None:
    tb = Path(__file__).resolve().parents[3] / "prereg" / "terminal-bench-sample.yaml"
    text = tb.read_text(encoding="utf-8")
    old = "measure: pass_at_k\n        k: 5\n"
    assert old in text
    ws.prereg.write_text(text.replace(old, "measure: pass_at_k\n        k: 0\n"), encoding="utf-8")
    # snakemake -n reads this prereg (its blake3 matching the config's) with the lock's
    # own reader: the workflow refuses it while it is read, before any job
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
