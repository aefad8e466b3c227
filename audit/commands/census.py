"""The census of an arm: totals per class, the per-column (or per-entry) tables.

One command for both kinds; the arm's kind (``--kind``, audit/kinds/arm_kind.py)
decides: audit/cells/census.py (leaderboard: census.txt, census.json, census_*.csv) or audit/trials/census.py
(trials: classes, rule recovery, intervals, entries).
"""

from __future__ import annotations

import argparse

from audit.kinds import arm_kind

HELP = "totals per class and the per-column (or per-entry) tables"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agreement", required=True, help="the agreement JSON (agreement.json)")
    p.add_argument("--cells", required=True, help="an agreed contestant output folder")
    p.add_argument("--prereg", required=True, help="the locked prereg (lock/prereg.yaml)")
    arm_kind.add_argument(p)
    p.add_argument("--lock", required=True, help="the lock record (lock/lock.json)")
    p.add_argument("--out-dir", required=True, help="where census.txt, census.json, ... go")


def run(args: argparse.Namespace) -> int:
    summarise = arm_kind.named(args.kind).entry("census")
    summarise(args.agreement, args.cells, args.prereg, args.lock, args.out_dir)
    return 0
