"""Command line: python -m impl_pyarrow --prereg P --bundle B --out DIR [--no-draws].

Subcommands: ``trials`` (trials v1), ``null-draws`` and ``null-merge`` (sharded
null draws); the latter two never import Arrow.
"""

from __future__ import annotations

import argparse
import sys

from . import pairs


def main(argv: list[str] | None = None) -> int:
    """Run the recompute; 0 on success, 2 on unusable input or a full disk, 1 if output
    fails otherwise."""
    from .write import DiskFull

    try:
        return _dispatch(sys.argv[1:] if argv is None else argv)
    except DiskFull as full:
        sys.stderr.write(full.line() + "\n")
        return 2


def _dispatch(args_in: list[str]) -> int:
    if args_in[:1] == ["trials"]:  # trials v1: python -m impl_pyarrow trials --prereg ...
        from .trials.__main__ import main as trials_main

        return trials_main(args_in[1:])
    if args_in[:1] == ["null-draws"]:
        from .shards import draws_main

        return draws_main(args_in[1:])
    if args_in[:1] == ["null-merge"]:
        from .shards import merge_main

        return merge_main(args_in[1:])
    parser = argparse.ArgumentParser(
        prog="python -m impl_pyarrow",
        description="Recompute a leaderboard from its instance table (contract cells v1).",
    )
    parser.add_argument("--prereg", required=True, help="preregistration YAML")
    pairs.declare(parser)
    parser.add_argument("--lock", default=None, help="lock/files.json: the bytes to read")
    parser.add_argument(
        "--no-draws",
        action="store_true",
        help="write cells, census and reproduce only (draws left to null-draws, null-merge)",
    )
    args = parser.parse_args(args_in)
    from .run import run  # Arrow is imported here, not for the subcommands

    return pairs.run_each(parser, args, run)


if __name__ == "__main__":
    sys.exit(main())
