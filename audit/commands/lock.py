"""Check the prereg's blake3, hash the bundle's files, start the ledger (leaderboard arms).

Writes <out-dir>/prereg.yaml, lock.json and files.json, and the lock's event file.
"""

from __future__ import annotations

import argparse

HELP = "check the prereg's blake3, hash the bundle, start the ledger"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prereg", required=True, help="the preregistration file (YAML)")
    p.add_argument(
        "--expected-blake3",
        required=True,
        help="the blake3 the prereg must have; any other stops the run (prereg_changed)",
    )
    p.add_argument("--bundle", required=True, help="the folder holding the bundle's files")
    p.add_argument(
        "--out-dir", required=True, help="where the lock is written (results/<arm>/lock)"
    )
    p.add_argument("--events", required=True, help="the lock's event file (events/lock.json)")
    p.add_argument(
        "--expect-bundle",
        default=None,
        help="a first seat's lock.json the bundle's content must match (second seat)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.lock import lock

    rec = lock(
        args.prereg,
        args.expected_blake3,
        args.bundle,
        args.out_dir,
        args.events,
        args.expect_bundle,
    )
    print(f"locked prereg {rec['prereg']['name']} blake3 {rec['prereg']['blake3']}")
    return 0
