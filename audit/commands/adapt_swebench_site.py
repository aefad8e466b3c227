"""The SWE-bench leaderboard site's file (data/leaderboards.json) into a bundle folder:
leaderboard and instance tables, the adapter's record and a drafted prereg (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "SWE-bench site leaderboards.json -> leaderboard, instances, drafted prereg"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the site's leaderboards.json")
    p.add_argument(
        "--board",
        action="append",
        metavar="NAME",
        help="a board to take (repeat for several); default every board of the file",
    )
    p.add_argument("--out", required=True, help="the bundle folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.adapters import formats

    swebench_site = formats.module("swebench-site-leaderboards")
    record = swebench_site.adapt_to(args.file, args.out, args.board)
    print("\n".join(swebench_site.summary_lines(record)))
    return 0
