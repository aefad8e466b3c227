"""Require byte-identical outputs from a contestant's repeated runs.

Every run folder must hold the same files with the same bytes; the proof is
written to --out.
"""

from __future__ import annotations

import argparse

HELP = "require byte-identical outputs from repeated runs"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="+", help="the run folders to compare (two or more)")
    p.add_argument("--out", required=True, help="the JSON proof to write (runs-identical.json)")


def run(args: argparse.Namespace) -> int:
    from audit.core.runs import same_runs

    res = same_runs(args.runs, args.out)
    print(f"{res['runs']} runs byte-identical: {', '.join(sorted(res['files']))}")
    return 0
