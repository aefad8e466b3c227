"""Command line: python -m impl_pandas --prereg P --bundle B --out DIR [--no-draws].

`--bundle B --out DIR` may be given more than once (the pairs in order): one
process recomputes each bundle under the one prereg, as the controls do for
their perturbed bundles.

Also `python -m impl_pandas trials ...` (contract trials v1) and the null's
shard commands `null-draws` and `null-merge` (shards.py), which load neither
pandas nor fastparquet."""

from __future__ import annotations

import argparse
import os
import sys

from .batch import add_pairs, recompute_each


def main(argv: list[str] | None = None) -> int:
    """Run the recompute; exit 0 on success, 2 on unusable input or a full disk (one
    stderr line)."""
    from .errors import full_disk, report

    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except OSError as err:
        line = full_disk(err)
        if line is None:
            raise
        return report(line)


def _main(argv: list[str]) -> int:
    if argv[:1] == ["trials"]:  # contract trials v1: python -m impl_pandas trials ...
        from .trials.__main__ import main as trials_main

        return trials_main(argv[1:])
    if argv[:1] in (["null-draws"], ["null-merge"]):  # contract: sharded null draws
        from .shards import main as shards_main

        return shards_main(argv[0], argv[1:])
    from .memory import small_pages

    small_pages()
    # no BLAS call is made: no BLAS thread pool, whose threads spin (CPU, not outputs)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from .pipeline import run

    parser = argparse.ArgumentParser(prog="python -m impl_pandas", description=__doc__)
    parser.add_argument("--prereg", required=True, help="preregistration (YAML)")
    add_pairs(parser, "bundle directory (parquet files)")
    parser.add_argument(
        "--lock", default=None, help="the lock's files.json: read only the bytes it hashed"
    )
    parser.add_argument(
        "--no-draws",
        action="store_true",
        help="write cells.csv, census.csv and reproduce.csv only (draws: null-draws, null-merge)",
    )
    return recompute_each(parser, parser.parse_args(argv), run)


if __name__ == "__main__":
    sys.exit(main())
