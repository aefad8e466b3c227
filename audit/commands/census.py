"""The census of an arm: totals per class, the per-column (or per-entry) tables.

One command for both kinds; the locked prereg's ``kind`` decides: audit/cells/census.py
(leaderboard: census.txt, census.json, census_*.csv) or audit/trials/census.py
(trials: classes, rule recovery, intervals, entries).
"""

from __future__ import annotations

import argparse

HELP = "totals per class and the per-column (or per-entry) tables"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agreement", required=True, help="the agreement JSON (agreement.json)")
    p.add_argument("--cells", required=True, help="an agreed contestant output folder")
    p.add_argument(
        "--prereg", required=True, help="the locked prereg (lock/prereg.yaml); its kind decides"
    )
    p.add_argument("--lock", required=True, help="the lock record (lock/lock.json)")
    p.add_argument("--out-dir", required=True, help="where census.txt, census.json, ... go")


def run(args: argparse.Namespace) -> int:
    from audit.core.arm_kind import TRIALS, kind_of_file

    if kind_of_file(args.prereg) == TRIALS:
        from audit.trials.census import summarise
    else:
        from audit.cells.census import summarise
    summarise(args.agreement, args.cells, args.prereg, args.lock, args.out_dir)
    return 0
