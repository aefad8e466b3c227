"""The single-run view: score, solve rate, pass@k and outcome classes of each run."""

from __future__ import annotations

import argparse

from audit.commands.trial_options import add_policy_arguments

HELP = "the single-run view: score, solve rate, pass@k, classes"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="run folders (or run names with --trials)")
    p.add_argument("--trials", default=None, help="a trial table; RUN... are then run names")
    p.add_argument(
        "--denominator",
        default="attempted",
        choices=["attempted", "scored"],
        help="what a task's score divides by (default attempted)",
    )
    add_policy_arguments(p)
    p.add_argument("--k", nargs="+", default=None, help="K[,K...]; default 1 and the largest k")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--out", default=None, help="also write the result to this file")


def run(args: argparse.Namespace) -> int:
    from audit.trials.metrics import run as metrics_run

    return metrics_run(args)
