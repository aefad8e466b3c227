"""The command line's bundle and output pairs: ``--bundle B --out DIR``, once or more.

One process may recompute several bundles under one prereg (the controls'
perturbed bundles), each into its own folder, in the order given."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .errors import InputError, report


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


def recompute_each(
    parser: argparse.ArgumentParser, args: argparse.Namespace, run: Callable[..., dict]
) -> int:
    """Each pair in turn: ``run(prereg, bundle, draws=...)``'s files written to its folder.
    The first bundle refused ends the command with its one line (exit 2)."""
    from .locked import locked_bundle
    from .write import write_all

    for bundle_dir, out in pairs(parser, args):
        try:
            with locked_bundle(bundle_dir, args.lock) as bundle:
                files = run(args.prereg, bundle, draws=not args.no_draws)
        except InputError as err:
            return report(err)
        write_all(out, files)
    return 0
