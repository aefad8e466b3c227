"""Command line: python -m impl_pyarrow --prereg P --bundle B --out DIR."""

from __future__ import annotations

import argparse
import sys

from .errors import InputError, report
from .run import run


def main(argv: list[str] | None = None) -> int:
    """Run the recompute; 0 on success, 2 on unusable input, 1 if output fails."""
    args_in = sys.argv[1:] if argv is None else argv
    if args_in[:1] == ["trials"]:  # trials v1: python -m impl_pyarrow trials --prereg ...
        from .trials.__main__ import main as trials_main

        return trials_main(args_in[1:])
    parser = argparse.ArgumentParser(
        prog="python -m impl_pyarrow",
        description="Recompute a leaderboard from its instance table (contract cells v1).",
    )
    parser.add_argument("--prereg", required=True, help="preregistration YAML")
    parser.add_argument("--bundle", required=True, help="bundle directory")
    parser.add_argument("--out", required=True, help="output directory")
    args = parser.parse_args(argv)
    try:
        run(args.prereg, args.bundle, args.out)
    except InputError as err:
        return report(err)
    except OSError as exc:
        detail = " ".join(str(exc).split())
        sys.stderr.write(f"error: {args.out}: cannot write output: {detail}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
