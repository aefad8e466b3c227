"""SWE-bench harness run reports (schema v2) into an instance table (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "SWE-bench run reports (v2) [joined to a published table] -> a bundle"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", nargs="+", help="<model>.<run_id>.json files")
    p.add_argument(
        "--denominators", required=True, help="POLICY[,...]: total, submitted, completed"
    )
    p.add_argument("--benchmark", default="swe-bench", help="the benchmark column's value")
    p.add_argument(
        "--published",
        help="a published table (parquet or CSV) to join the reports to: the leaderboard",
    )
    p.add_argument("--key", help="the published table's key column (with --published)")
    p.add_argument(
        "--key-of",
        help="what a key equals: the report's model (as its file name spells it) or its id",
    )
    p.add_argument("--out", required=True, help="the folder to write")
    p.add_argument(
        "--all-or-nothing",
        action="store_true",
        help="refuse the batch if any report cannot be read (default: list and skip it)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.adapters import formats

    swe = formats.module("swebench-report-v2")
    policies = swe.parse_policies(args.denominators)
    _, doc = swe.adapt_to(
        args.reports,
        args.out,
        policies,
        args.benchmark,
        args.all_or_nothing,
        published=args.published,
        key=args.key,
        key_of=args.key_of,
    )
    print("\n".join(swe.summary_lines(doc)))
    return 0
