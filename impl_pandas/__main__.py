"""Command line: python -m impl_pandas --prereg P --bundle B --out DIR."""

from __future__ import annotations

import argparse
import sys

from .errors import InputError, report
from .pipeline import run
from .write import write_all


def main(argv: list[str] | None = None) -> int:
    """Run the recompute; exit 0 on success, 2 on unusable input (one stderr line)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["trials"]:  # contract trials v1: python -m impl_pandas trials ...
        from .trials.__main__ import main as trials_main

        return trials_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m impl_pandas", description=__doc__)
    parser.add_argument("--prereg", required=True, help="preregistration (YAML)")
    parser.add_argument("--bundle", required=True, help="bundle directory (parquet files)")
    parser.add_argument("--out", required=True, help="output directory")
    args = parser.parse_args(argv)
    try:
        files = run(args.prereg, args.bundle)
    except InputError as err:
        return report(err)
    write_all(args.out, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
