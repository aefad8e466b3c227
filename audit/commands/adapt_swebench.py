"""SWE-bench harness run reports (schema v2) into an instance table (docs/intake.md)."""

from __future__ import annotations

import argparse

HELP = "SWE-bench run reports (v2) -> instances.parquet"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reports", nargs="+", help="<model>.<run_id>.json files")
    p.add_argument(
        "--denominators", required=True, help="POLICY[,...]: total, submitted, completed"
    )
    p.add_argument("--benchmark", default="swe-bench", help="the benchmark column's value")
    p.add_argument("--out", required=True, help="the folder to write")
    p.add_argument(
        "--all-or-nothing",
        action="store_true",
        help="refuse the batch if any report cannot be read (default: list and skip it)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.adapters import swebench_report as swe

    policies = swe.parse_policies(args.denominators)
    _, doc = swe.adapt_to(args.reports, args.out, policies, args.benchmark, args.all_or_nothing)
    print("\n".join(swe.summary_lines(doc)))
    return 0
