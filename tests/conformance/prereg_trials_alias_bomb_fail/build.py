"""Builds the prereg_trials_alias_bomb_fail case from the demo bundle."""

from __future__ import annotations

from pathlib import Path

from audit.files import file_blake3


def build(ws) -> None:
    trials = Path(__file__).resolve().parents[3] / "prereg" / "skillsbench-registry.yaml"
    lines = ["lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    ws.prereg.write_text(trials.read_text(encoding="utf-8") + "\n".join(lines) + "\n")
    # snakemake -n reads this prereg (its blake3 matching the config's): the workflow
    # refuses it while it is read, before any job
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
