"""Write a leaderboard arm's report: report.md, report.html and the plots (SVG)."""

from __future__ import annotations

import argparse

HELP = "write the Markdown and HTML report with its plots"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--res", required=True, help="the arm's results folder (results/<arm>)")
    p.add_argument("--out", required=True, help="the report folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.report import build

    build(args.res, args.out)
    return 0
