"""Compare the two contestants' outputs cell by cell (or trial table by trial table)."""

from __future__ import annotations

import argparse

from audit.kinds import arm_kind

HELP = "compare the two implementations cell by cell"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--a", required=True, help="first contestant's output folder")
    p.add_argument("--b", required=True, help="second contestant's output folder")
    p.add_argument(
        "--names",
        nargs=2,
        default=["pandas", "pyarrow"],
        metavar=("NAME_A", "NAME_B"),
        help="the two contestants' names in the report (default: pandas pyarrow)",
    )
    p.add_argument(
        "--prereg",
        required=True,
        help="the locked prereg (lock/prereg.yaml): what it declares adds files compared",
    )
    arm_kind.add_argument(p)  # the kind decides the files compared
    p.add_argument("--out-json", required=True, help="the agreement as JSON (agreement.json)")
    p.add_argument("--out-md", required=True, help="the agreement as Markdown (agreement.md)")


def run(args: argparse.Namespace) -> int:
    from audit.core.agree import agree
    from audit.kinds.agreed import keys_for

    keys = keys_for(arm_kind.named(args.kind), args.prereg)
    rep = agree(args.a, args.b, tuple(args.names), args.out_json, args.out_md, keys)
    print(f"agreement: {rep.census_cells_compared} cells, {rep.disagreements} disagreement(s)")
    return 0
