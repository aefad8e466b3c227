"""Builds the config_trials_null_shards_above_draws_fail case from the Terminal-Bench prereg."""

from __future__ import annotations

import shutil
from pathlib import Path

from audit.files import file_blake3


def build(ws) -> None:
    tb = Path(__file__).resolve().parents[3] / "prereg" / "terminal-bench-sample.yaml"
    shutil.copyfile(tb, ws.prereg)
    assert "null_draws: 1000\n" in ws.prereg.read_text(encoding="utf-8")
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
    # a trials arm may split its null into shards (docs/trials-contract.md 9.1), at most
    # one per draw: 1001 shards for 1000 draws is refused while the workflow is read
    ws.config["null_shards"] = 1001
