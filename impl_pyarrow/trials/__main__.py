"""Command line: python -m impl_pyarrow.trials --prereg P --bundle B --out DIR.

The contract's form, ``python -m impl_pyarrow trials --prereg P --bundle B --out DIR``,
lands here too.
"""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError, report
from .run import run


def main(argv: list[str] | None = None) -> int:
    """Run the trial-level recompute; 0 on success, 2 on unusable input, 1 if output fails."""
    parser = argparse.ArgumentParser(
        prog="python -m impl_pyarrow trials",
        description="Recompute scores from a trial table or a task-level registry (trials v1).",
    )
    parser.add_argument("--prereg", required=True, help="preregistration YAML (trials v1)")
    parser.add_argument("--bundle", required=True, help="bundle directory")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--lock", default=None, help="lock/files.json: the bytes to read")
    args = parser.parse_args(argv)
    from ..locked import LockedBundle

    try:
        with LockedBundle(args.bundle, args.lock) as bundle:
            run(args.prereg, bundle, args.out)
    except InputError as err:
        return report(err)
    except OSError as exc:
        detail = " ".join(str(exc).split())
        sys.stderr.write(f"error: {args.out}: cannot write output: {detail}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
