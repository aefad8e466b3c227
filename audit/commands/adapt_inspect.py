"""Inspect eval logs into trials, per-item records and the header's claim (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "Inspect eval logs -> trials, items, claim"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("logs", nargs="+", help=".eval or .json logs")
    p.add_argument("--scorer", default=None, help="the scorer to read (required if several)")
    p.add_argument("--out", required=True, help="the folder to write")
    p.add_argument(
        "--all-or-nothing",
        action="store_true",
        help="refuse the batch if any log cannot be read (default: list and skip it)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.adapters import formats

    inspect_log = formats.module("inspect-eval-log")
    doc = inspect_log.adapt_to(args.logs, args.out, args.scorer, args.all_or_nothing)
    print("\n".join(inspect_log.summary_lines(doc)))
    return 0
