"""The lock: check the prereg's blake3, hash the bundle's files, start the ledger.

One command for both kinds; the prereg's own ``kind`` decides (audit/core/arm_kind.py):
a leaderboard arm's lock (audit/cells/lock.py) or a trials arm's (audit/trials/lock.py,
which also hashes the adapter's trials table). Writes <out-dir>/prereg.yaml,
lock.json and files.json, and the lock's event file.
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
        "--assembled",
        default=None,
        help="a trials arm's folder holding the adapter's trials.parquet (trials source only)",
    )
    p.add_argument(
        "--out-dir", required=True, help="where the lock is written (results/<arm>/lock)"
    )
    p.add_argument("--events", required=True, help="the lock's event file (events/lock.json)")
    p.add_argument(
        "--expect-bundle",
        default=None,
        help="a first seat's lock.json the bundle's content must match (second seat)",
    )


def _kind(prereg: str) -> str:
    from audit.core.arm_kind import LEADERBOARD, kind_of_file
    from audit.errors import AuditError

    try:
        return kind_of_file(prereg)
    except AuditError:
        # Unreadable, or no kind a prereg may name: the leaderboard lock refuses it,
        # its blake3 checked first, as for any prereg.
        return LEADERBOARD


def run(args: argparse.Namespace) -> int:
    from audit.core.arm_kind import TRIALS
    from audit.errors import AuditError

    if _kind(args.prereg) == TRIALS:
        from audit.trials.lock import lock as trials_lock

        rec = trials_lock(
            args.prereg,
            args.expected_blake3,
            args.bundle,
            args.out_dir,
            args.events,
            args.assembled,
            args.expect_bundle,
        )
    else:
        if args.assembled is not None:
            raise AuditError("bad_args", args.prereg, "--assembled is for a trials arm only")
        from audit.cells.lock import lock

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
