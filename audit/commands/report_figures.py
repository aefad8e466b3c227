"""Draw a leaderboard arm's report figures (SVG) into the report's folder, before its
census: audit/report/leaderboard_figures.py says what each shows and from which files.
The workflow runs it as soon as the first contestant's first run and the controls'
checks exist; the report (``report``) inlines the figures as written."""

from __future__ import annotations

import argparse
import gc

HELP = "draw a leaderboard report's figures (SVG) before its census"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--res", required=True, help="the arm's results folder (results/<arm>)")
    p.add_argument("--out", required=True, help="the report folder to write them into")


def run(args: argparse.Namespace) -> int:
    from audit.report import leaderboard_figures

    # what the imports made (matplotlib) stays to the end: set aside from the garbage
    # collector, which otherwise walks it all again on each full collection while drawing
    gc.freeze()
    leaderboard_figures.draw(args.res, args.out)
    return 0
