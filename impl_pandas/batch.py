"""The command line's bundle and output pairs: ``--bundle B --out DIR``, once or more.

One process may recompute several bundles under one prereg (the controls'
perturbed bundles), each into its own folder, in the order given."""

from __future__ import annotations

import argparse


def add_pairs(parser: argparse.ArgumentParser, bundle_help: str) -> None:
    parser.add_argument("--bundle", required=True, action="append", help=bundle_help)
    parser.add_argument(
        "--out", required=True, action="append", help="output directory, one per --bundle"
    )


def pairs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[tuple[str, str]]:
    """Each --bundle with its --out; a lock names one bundle's bytes, so one bundle then."""
    if len(args.bundle) != len(args.out):
        parser.error(f"{len(args.bundle)} --bundle but {len(args.out)} --out: give them in pairs")
    if args.lock is not None and len(args.bundle) > 1:
        parser.error("--lock names one bundle's bytes: give one --bundle with it")
    return list(zip(args.bundle, args.out, strict=True))
