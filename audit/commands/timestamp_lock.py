"""Time-stamp the lock with an RFC 3161 authority, before anything is computed.

Sends the hash the ledger's line closing the lock's events will have (computed
from the lock's event file) to the TSA, checks the reply against the certificates
the seat trusts, and writes the token (``lock/lock.tsr``) and then the record
(``lock/timestamp.json``: what was stamped, by whom, when). A TSA that is down or
answers badly is ``error[tsa_unavailable]``, exit 2, nothing written; with
``--optional`` the record says it was not stamped and why (docs/seal.md).
"""

from __future__ import annotations

import argparse

HELP = "time-stamp the lock's hash with an RFC 3161 authority (lock.tsr)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--events", required=True, help="the lock's event file (events/lock.json)")
    p.add_argument("--out", required=True, help="the record to write (lock/timestamp.json)")
    p.add_argument("--token", required=True, help="where the token goes (lock/lock.tsr)")
    p.add_argument("--url", required=True, help="the time-stamping authority's URL")
    p.add_argument("--cert", required=True, help="PEM of the TSA's CA or TSA certificates")
    p.add_argument(
        "--optional",
        action="store_true",
        help="a TSA that is down or answers badly is recorded as such, not a refusal",
    )


def run(args: argparse.Namespace) -> int:
    from audit.seal.timestamp import stamp_lock

    rec = stamp_lock(args.events, args.out, args.token, args.url, args.cert, args.optional)
    if rec["stamped"]:
        print(f"lock time-stamped at {rec['gen_time']} by {args.url}: {args.token}")
    else:
        print(f"note: the lock is NOT time-stamped ({rec['reason']}); recorded in {args.out}")
    return 0
