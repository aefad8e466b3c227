"""What each trial recorded it ran with: the settings, counted across a trial table."""

from __future__ import annotations

import argparse

HELP = "what each trial recorded it ran with"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trials", help="a trial table (trials.parquet)")
    p.add_argument("--out", required=True, help="the folder for the settings census")


def run(args: argparse.Namespace) -> int:
    from audit.trials.settings_census import write

    print("\n".join(write(args.trials, args.out)))
    return 0
