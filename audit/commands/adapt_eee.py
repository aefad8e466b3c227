"""Every Eval Ever records into trials, items and claim; each record's checksum and row
count checked (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "Every Eval Ever records -> trials, items, claim"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("aggregates", nargs="+", help="aggregate .json records (sidecar beside)")
    p.add_argument("--out", required=True, help="the folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.bundles.eee import adapt_to

    doc = adapt_to(args.aggregates, args.out)
    for rec in doc["records"]:
        print(f"{rec['evaluation_id']}: {rec['rows']} row(s), checksum and row count hold")
    return 0
