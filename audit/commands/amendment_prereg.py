"""Rewrite an amendment prereg's `amends` head from its parent's sealed, verified
annex, then the amendment config's prereg_blake3 (docs/seal.md, "Amendment arms")."""

from __future__ import annotations

import argparse

HELP = "rewrite a prereg's amends head from the parent's sealed run"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("prereg", help="the amendment's prereg (its amends block is rewritten)")
    p.add_argument("--config", required=True, help="the amendment's config (its prereg_blake3)")
    p.add_argument(
        "--results", default="results", help="the results folder holding the parent's arm"
    )


def run(args: argparse.Namespace) -> int:
    from audit.lock.amends import refresh

    for line in refresh(args.prereg, args.config, args.results):
        print(line)
    return 0
