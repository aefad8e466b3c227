"""Verify an annex: its head, ledger chain, every listed file, the signature, the schemas.

Exit 0 when everything holds, 1 (each problem on stderr) when not.
"""

from __future__ import annotations

import argparse
import sys

HELP = "verify an annex: head, ledger, files, signature, schemas"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("annex", help="the annex folder (results/<arm>/annex)")
    p.add_argument(
        "--head",
        default=None,
        help="the annex head the seat printed or published; without it the annex is only "
        "checked against itself",
    )
    p.add_argument("--key", default=None, help="the seat's public key file you trust")
    p.add_argument(
        "--tsa-cert",
        default=None,
        help="PEM of the time-stamping authority's CA or TSA certificates you trust: the "
        "lock's and the seal's RFC 3161 tokens must be signed under them",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from audit.kinds.arm_kind import annex_contract
    from audit.seal import ledger, timestamp
    from audit.seal.contract import LEDGER
    from audit.seal.verify import verify

    problems = verify(args.annex, args.head, args.key, args.tsa_cert, read_prereg=annex_contract)
    for line in problems:
        print(f"FAILED: {line}", file=sys.stderr)
    if problems:
        return 1
    held = "against the head you hold" if args.head else "against itself only (no --head)"
    print(f"{args.annex}: verified {held} (ledger, files, signature, schemas)")
    path = Path(args.annex) / LEDGER
    entries = [e for e in ledger.parse(ledger.read_raw(path), str(path)) if isinstance(e, dict)]
    stamps = timestamp.check_annex(Path(args.annex), entries, args.tsa_cert)
    print(f"time-stamps: {stamps.summary}")
    return 0
