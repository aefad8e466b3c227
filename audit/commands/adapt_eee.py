"""Every Eval Ever records into trials, items and claim; each record's checksum and row
count checked (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "Every Eval Ever records -> trials, items, claim"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("aggregates", nargs="+", help="aggregate .json records (sidecar beside)")
    p.add_argument("--out", required=True, help="the folder to write")
    p.add_argument(
        "--all-or-nothing",
        action="store_true",
        help="refuse the batch if any record cannot be read (default: list and skip it)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.adapters import formats

    eee = formats.module("every-eval-ever")
    doc = eee.adapt_to(args.aggregates, args.out, args.all_or_nothing)
    print("\n".join(eee.summary_lines(doc)))
    return 0
