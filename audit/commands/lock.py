"""The lock: check the prereg's blake3, hash the bundle's files, start the ledger.

One command for both kinds; the arm's kind (``--kind``, as the workflow read it from
this prereg before any job, audit/kinds/arm_kind.py) decides, and that kind's own
checks refuse a prereg of the other kind: a leaderboard arm's lock (audit/lock/cells.py)
or a trials arm's (audit/lock/trials.py, which also hashes the adapter's trials table).
The prereg is read once (audit/lock/shared.py). Writes <out-dir>/prereg.yaml, lock.json
and files.json, and the lock's event file.
"""

from __future__ import annotations

import argparse

from audit.kinds import arm_kind

HELP = "check the prereg's blake3, hash the bundle, start the ledger"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prereg", required=True, help="the preregistration file (YAML)")
    p.add_argument(
        "--expected-blake3",
        required=True,
        help="the blake3 the prereg must have; any other stops the run (prereg_changed)",
    )
    arm_kind.add_argument(p)
    p.add_argument("--bundle", required=True, help="the folder holding the bundle's files")
    p.add_argument(
        "--assembled",
        default=None,
        help="a trials arm's folder holding the adapter's trials.parquet (trials source only)",
    )
    p.add_argument(
        "--out-dir", required=True, help="where the lock is written (results/<arm>/lock)"
    )
    p.add_argument(
        "--results",
        default="results",
        help="the folder holding every arm (an amendment's parent: <results>/<parent>/annex)",
    )
    p.add_argument("--events", required=True, help="the lock's event file (events/lock.json)")
    p.add_argument(
        "--judged",
        action="store_true",
        help="the workflow's preflight judged the bundle's tables and its controls' targets"
        " in this run (a shipped bundle; a trials source's jobs folder within its bound):"
        " not judged again",
    )
    p.add_argument(
        "--expect-bundle",
        default=None,
        help="a first seat's lock.json the bundle's content must match (second seat)",
    )


def run(args: argparse.Namespace) -> int:
    from audit.errors import AuditError
    from audit.lock.shared import read_prereg

    kind = arm_kind.named(args.kind)
    if args.assembled is not None and kind is not arm_kind.TRIALS:
        raise AuditError("bad_args", args.prereg, "--assembled is for a trials arm only")
    assembled = {"assembled": args.assembled} if kind is arm_kind.TRIALS else {}
    prereg = read_prereg(args.prereg, args.expected_blake3)  # blake3 first, then the YAML
    rec = kind.entry("lock")(
        prereg,
        args.bundle,
        args.out_dir,
        args.events,
        args.results,
        expect_lock=args.expect_bundle,
        judged=args.judged,
        **assembled,
    )
    print(f"locked prereg {rec['prereg']['name']} blake3 {rec['prereg']['blake3']}")
    return 0
