"""Write an arm's report: report.md, report.html and the plots (SVG).

One command for both kinds; the arm's kind (``--kind``, audit/kinds/arm_kind.py)
decides: audit/report/leaderboard.py (leaderboard) or audit/report/trials.py
(trials), both from the one template set (audit/report/templates/).
"""

from __future__ import annotations

import argparse
import gc

from audit.kinds import arm_kind

HELP = "write the Markdown and HTML report with its plots"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--res",
        required=True,
        help="the arm's results folder (results/<arm>)",
    )
    arm_kind.add_argument(p)
    p.add_argument("--out", required=True, help="the report folder to write")


def run(args: argparse.Namespace) -> int:
    build = arm_kind.named(args.kind).entry("report")
    # what the imports made (matplotlib, numpy, polars) stays to the end: set aside from
    # the garbage collector, which otherwise walks it all again on each full collection
    # while the plots are drawn
    gc.freeze()
    build(args.res, args.out)
    return 0
