"""Write a trials arm's report (Markdown, HTML and plots)."""

from __future__ import annotations

import argparse

HELP = "the report of a trials arm"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--res", required=True, help="the arm's results folder (results/<arm>)")
    p.add_argument("--out", required=True, help="the report folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.trials_report import build

    build(args.res, args.out)
    return 0
