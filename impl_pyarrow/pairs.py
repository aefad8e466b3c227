"""Which bundle goes to which output folder: the ``--bundle``/``--out`` options.

Each option may repeat. The n-th ``--bundle`` is recomputed into the n-th
``--out``, all under the one prereg, one after the other in this process (the
controls' perturbed bundles are recomputed so)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from .errors import InputError, report


def declare(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bundle", action="append", required=True, help="bundle directory")
    parser.add_argument(
        "--out", action="append", required=True, help="output directory for the bundle before it"
    )


def jobs(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[tuple[str, str]]:
    bundles, outs = args.bundle, args.out
    if len(outs) != len(bundles):
        parser.error(f"each --bundle needs its --out ({len(bundles)} against {len(outs)})")
    if len(bundles) > 1 and args.lock is not None:
        parser.error("--lock holds the bytes of a single bundle: one --bundle only")
    return [(bundles[k], outs[k]) for k in range(len(bundles))]


def run_each(
    parser: argparse.ArgumentParser, args: argparse.Namespace, run: Callable[..., None]
) -> int:
    """``run(prereg, bundle, out, draws=...)`` for each job in turn: 0, or the first
    refusal's 2 (its one line), or 1 when an output folder cannot be written."""
    from .locked import LockedBundle

    for bundle_dir, out in jobs(parser, args):
        try:
            with LockedBundle(bundle_dir, args.lock) as bundle:
                run(args.prereg, bundle, out, draws=not args.no_draws)
        except InputError as err:
            return report(err)
        except OSError as exc:
            detail = " ".join(str(exc).split())
            sys.stderr.write(f"error: {out}: cannot write output: {detail}\n")
            return 1
    return 0
