"""A prereg drafted from the bundle's column names and types alone; the lock refuses
it until every undecided column is decided (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "a prereg from the bundle's column names and types"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("bundle", help="a bundle folder (its parquet files) or one parquet file")
    p.add_argument("--out", required=True, help="the prereg to write (never overwritten)")


def run(args: argparse.Namespace) -> int:
    from audit.cells.draft_prereg import write

    doc = write(args.bundle, args.out)
    n = sum(len(cols) for cols in doc["undecided"].values())
    print(f"{args.out}: drafted, {n} column(s) undecided in {len(doc['undecided'])} file(s)")
    return 0
