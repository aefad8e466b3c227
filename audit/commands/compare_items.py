"""The first divergent boundary between two runs' per-item records (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "first divergent boundary between two runs' items"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="the first run's items (parquet or JSON lines)")
    p.add_argument("b", help="the second run's items (parquet or JSON lines)")
    p.add_argument("--id", default="item_id", help="the column naming an item")
    p.add_argument("--boundaries", default=None, help="NAME=COLUMN,... in order")
    p.add_argument("--out", default=None, help="a folder for the comparison's files")


def run(args: argparse.Namespace) -> int:
    from audit.trials import compare_items

    res = compare_items.compare(args.a, args.b, args.id, args.boundaries)
    if args.out:
        compare_items.write(res, args.out)
    print("\n".join(compare_items.summary_lines(res)))
    return 0
