"""Unpack a published annex archive, verifying it before and while it is written.

Before a byte is written every member is checked: regular files only (no links,
hard links, devices or pipes), under ``annex/`` or ``ro-crate-metadata.json``,
relative, without ``..``, each named once, sizes within bounds. The files are
written into a hidden folder inside DIR; the annex there must verify with the
head you hold (and its time-stamps with ``--tsa-cert``), and the crate must be
the one that annex makes; only then are they moved into place. A refusal is one
line, exit 2, and leaves nothing in DIR.
"""

from __future__ import annotations

import argparse

HELP = "unpack a published annex archive, verified with the head you hold"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("archive", help="the archive publish wrote")
    p.add_argument("--head", required=True, help="the annex head, obtained from the seat")
    p.add_argument("--out", required=True, help="an empty or new folder to unpack into")
    _tsa(p)


def _tsa(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tsa-cert",
        default=None,
        help="PEM of the time-stamping authority's CA or TSA certificates you trust",
    )


def run(args: argparse.Namespace) -> int:
    from audit.kinds.arm_kind import annex_contract
    from audit.seal.publish import fetch

    annex = fetch(args.archive, args.head, args.out, args.tsa_cert, read_prereg=annex_contract)
    print(f"{annex}: verified with head {args.head}")
    return 0
