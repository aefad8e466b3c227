"""Command line: python -m impl_pandas.trials --prereg P --bundle B --out DIR [--no-draws].

`--bundle B --out DIR` may repeat: each bundle recomputed in turn, one process.

The same as `python -m impl_pandas trials --prereg P --bundle B --out DIR`. Also the
null's shard commands `null-draws` and `null-merge` (section 9.1, shards.py)."""

from __future__ import annotations

import argparse
import sys

from ..batch import add_pairs, recompute_each
from .pipeline import run


def main(argv: list[str] | None = None) -> int:
    """Run the trial-level recompute; exit 0, or 2 with one stderr line on unusable input."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["null-draws"], ["null-merge"]):  # section 9.1: the null in shards
        from .shards import main as shards_main

        return shards_main(argv[0], argv[1:])
    parser = argparse.ArgumentParser(prog="python -m impl_pandas trials", description=__doc__)
    parser.add_argument("--prereg", required=True, help="preregistration (YAML, trials v1)")
    add_pairs(parser, "bundle directory")
    parser.add_argument(
        "--lock", default=None, help="the lock's files.json: read only the bytes it hashed"
    )
    parser.add_argument(
        "--no-draws",
        action="store_true",
        help="write reproduce.csv instead of nulls.csv and null_hist.csv (section 9.1)",
    )
    return recompute_each(parser, parser.parse_args(argv), run)


if __name__ == "__main__":
    sys.exit(main())
