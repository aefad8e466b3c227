"""Write a synthetic bundle of any size, with the divergent cells it plants (planted.csv)."""

from __future__ import annotations

import argparse

HELP = "write a synthetic bundle of any size (planted.csv)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rows", type=int, required=True, help="about this many instance rows")
    p.add_argument("--models", type=int, default=40, help="leaderboard rows (default 40)")
    p.add_argument("--seed", type=int, default=1, help="the generator's seed (default 1)")
    p.add_argument("--out", required=True, help="the bundle folder to write")


def run(args: argparse.Namespace) -> int:
    from audit.bundles.generate import generate

    shape = generate(args.rows, args.models, args.seed, args.out)
    print(
        f"{args.out}: {shape['instance_rows']} instance rows, {shape['models']} models, "
        f"{shape['planted']} planted divergent cells"
    )
    return 0
