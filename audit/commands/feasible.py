"""Can each published value of a column be true at all, at its count? (GRIM / GRIMMER.)

For a reader who has only a published table (parquet, CSV or JSON lines). A
rate or mean over N items of integer scores in LO..HI is S/N for a whole S; a
spread (SD, SE, CI half-width) of them is fixed by S and the sum of squares.
Each value is judged at its own printed decimals (or --decimals) under the
declared --rounding, in exact fractions. One line per row, tab-separated:
the row's id, its value, the verdict (feasible, infeasible, undecided,
no_value, not_a_number, no_count) and the counts that give it, or the nearest
ones. Exit 0 when it ran (docs/cli.md, "feasible").
"""

from __future__ import annotations

import argparse

HELP = "whether each published value is k/N for some count (GRIM, GRIMMER)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("table", help="a parquet, CSV or JSON-lines table")
    p.add_argument("--column", required=True, help="the column of published values")
    n = p.add_mutually_exclusive_group(required=True)
    n.add_argument(
        "--n", default=None, help="N, the count every value is over (a whole number > 0)"
    )
    n.add_argument("--n-column", default=None, help="the column holding each row's N")
    p.add_argument("--id", default=None, help="the column naming each row (default the first)")
    p.add_argument(
        "--rounding",
        default="half_even",
        choices=["half_even", "half_up", "truncate"],
        help="how the values were rounded to their printed decimals "
        "(half_up: ties away from zero; truncate: toward zero)",
    )
    p.add_argument(
        "--decimals",
        type=int,
        default=None,
        help="read every value at D decimals (a stored float prints no trailing zero)",
    )
    p.add_argument("--scale", default="1", help="what a rate of 1 is written as: 1, or 100 for %%")
    p.add_argument(
        "--scores", default="0:1", help="LO:HI, the integer scores an item can get (0:1 pass/fail)"
    )
    p.add_argument(
        "--runs",
        default=None,
        help="M: each value is over M runs of N items (a mean or spread of runs)",
    )
    p.add_argument(
        "--spread",
        default=None,
        choices=["sd", "se", "ci"],
        help="the column is a spread of the scores (of the runs' means with --runs), not a mean",
    )
    p.add_argument(
        "--sd",
        default="either",
        choices=["sample", "population", "either"],
        help="which SD a spread is of (either: infeasible only when neither gives it)",
    )
    p.add_argument("--z", default=None, help="a CI half-width's multiplier of the SE (e.g. 1.96)")
    p.add_argument("--mean-column", default=None, help="the published mean beside a spread")


def run(args: argparse.Namespace) -> int:
    from audit.feasible.check import run as check_run

    return check_run(args)
