"""Write the embedded demo bundle (every cell worked out by hand, audit/bundles/demo.py)."""

from __future__ import annotations

import argparse

HELP = "write the embedded demo bundle"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="the bundle folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.bundles.demo import write

    write(args.out)
    return 0
