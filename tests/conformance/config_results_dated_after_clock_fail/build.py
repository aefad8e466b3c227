"""Builds the config_results_dated_after_clock_fail case from the demo bundle."""

from __future__ import annotations

import os
import time


def build(ws) -> None:
    ws.make_ledger()  # results/demo: the lock, the ledger and two recorded outputs
    census = ws.dir / "results" / "demo" / "census.csv"
    os.utime(census, (time.time(), time.time() + 3600))
    # the inputs the arm was locked with (another prereg file would be another arm, arm_locked)
    ws.config["prereg"] = "prereg.yaml"
    ws.config["bundle"] = "bundle"
