"""Compare two seats' annexes file by file; exit 1 when they differ."""

from __future__ import annotations

import argparse

HELP = "two seats' annexes, file by file"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("a", help="the first seat's annex folder")
    p.add_argument("b", help="the second seat's annex folder")


def run(args: argparse.Namespace) -> int:
    from audit.seal.compare import compare, render

    result = compare(args.a, args.b)
    print(render(result, args.a, args.b), end="")
    return 0 if result["agree"] else 1
