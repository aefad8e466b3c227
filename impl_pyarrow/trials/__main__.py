"""Command line: python -m impl_pyarrow.trials --prereg P --bundle B --out DIR.

The contract's form, ``python -m impl_pyarrow trials --prereg P --bundle B --out DIR``,
lands here too, and so do the null's shard commands ``trials null-draws`` and
``trials null-merge`` (section 9.1, shards.py).
"""

from __future__ import annotations

import argparse
import sys

from .. import pairs
from .run import run


def main(argv: list[str] | None = None) -> int:
    """Run the trial-level recompute; 0 on success, 2 on unusable input, 1 if output fails."""
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] in (["null-draws"], ["null-merge"]):  # section 9.1, no Arrow
        from .shards import main as shards_main

        return shards_main(args_in[0], args_in[1:])
    parser = argparse.ArgumentParser(
        prog="python -m impl_pyarrow trials",
        description="Recompute scores from a trial table or a task-level registry (trials v1).",
    )
    parser.add_argument("--prereg", required=True, help="preregistration YAML (trials v1)")
    pairs.declare(parser)
    parser.add_argument("--lock", default=None, help="lock/files.json: the bytes to read")
    parser.add_argument(
        "--no-draws",
        action="store_true",
        help="write reproduce.csv in place of nulls.csv and null_hist.csv (section 9.1)",
    )
    args = parser.parse_args(args_in)
    return pairs.run_each(parser, args, run)


if __name__ == "__main__":
    sys.exit(main())
