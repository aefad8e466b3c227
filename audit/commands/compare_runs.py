"""Paired comparison of two agent runs over the tasks both attempted (docs/trials.md).

Rerun minus published, broken verifiers first, each side's trials by outcome
class, intervals per arm and a power statement. Refuses when recorded settings
differ on paired tasks unless they are named --under-study.
"""

from __future__ import annotations

import argparse

from audit.commands.trial_options import add_policy_arguments

HELP = "paired comparison of two runs over tasks"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", nargs="?", default=None, help="arm A (or --a, repeatable)")
    p.add_argument("b", nargs="?", default=None, help="arm B (or --b, repeatable)")
    p.add_argument("--a", dest="arm_a", action="append", default=None, help="a run pooled into A")
    p.add_argument("--b", dest="arm_b", action="append", default=None, help="a run pooled into B")
    p.add_argument(
        "--denominator",
        required=True,
        choices=["attempted", "scored"],
        help="what a task's score divides by: every attempted trial, or only scored ones",
    )
    p.add_argument("--k", nargs="+", default=None, help="K[,K...]; default 1 and the largest k")
    p.add_argument(
        "--seed", type=int, required=True, help="the seed of the sign-flip and within-task draws"
    )
    p.add_argument(
        "--draws",
        type=int,
        required=True,
        help="Monte Carlo draws of the sign-flip and within-task tests",
    )
    p.add_argument(
        "--under-study",
        nargs="*",
        default=[],
        help="NAME[,NAME...]: recorded settings allowed to differ between A and B",
    )
    p.add_argument("--trials", default=None, help="a trial table; A and B are then run names")
    p.add_argument(
        "--difference", default="A-B", choices=["A-B", "B-A"], help="the sign of the difference"
    )
    p.add_argument(
        "--unit",
        default="reward",
        choices=["reward", "points"],
        help="the difference as a reward (0 to 1) or in percentage points",
    )
    add_policy_arguments(p)
    p.add_argument("--alpha", type=float, default=0.05, help="power statement: false-positive rate")
    p.add_argument("--power", type=float, default=0.8, help="power statement: power")
    p.add_argument("--out", default=None, help="a folder for the comparison's files")


def run(args: argparse.Namespace) -> int:
    from audit.trials.compare_runs import run as compare_runs

    return compare_runs(args)
