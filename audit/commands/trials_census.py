"""A trials arm's census: classes, rule recovery, intervals, entries."""

from __future__ import annotations

import argparse

HELP = "classes, rule recovery, intervals, entries"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agreement", required=True, help="the agreement JSON (agreement.json)")
    p.add_argument("--cells", required=True, help="an agreed contestant output folder")
    p.add_argument("--prereg", required=True, help="the locked prereg (lock/prereg.yaml)")
    p.add_argument("--lock", required=True, help="the lock record (lock/lock.json)")
    p.add_argument("--out-dir", required=True, help="where the census files go")


def run(args: argparse.Namespace) -> int:
    from audit.trials_census import summarise

    summarise(args.agreement, args.cells, args.prereg, args.lock, args.out_dir)
    return 0
