"""Walk a ledger's hash chain and rehash its subjects.

Exit 0 when the chain holds; 1 with every problem on stdout and the first, classed,
on stderr.
"""

from __future__ import annotations

import argparse
import sys

HELP = "walk a ledger's hash chain and rehash its subjects"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ledger", help="the ledger (ledger.jsonl)")
    p.add_argument("--head", default=None, help="the head the ledger's last line must hash to")


def run(args: argparse.Namespace) -> int:
    from audit.errors import AuditError
    from audit.seal.ledger import check

    problems = check(args.ledger, args.head)
    if problems:
        kind, first = problems[0]
        if kind in ("missing_file", "unreadable"):
            raise AuditError(kind, args.ledger, first.removeprefix(f"{args.ledger}: "))
        # Every problem on stdout; one line on stderr: the first, classed.
        for _, line in problems:
            print(line)
        more = f" (and {len(problems) - 1} more, listed on stdout)" if len(problems) > 1 else ""
        print(f"error[{kind}]: {first}{more}", file=sys.stderr)
        return 1
    print(f"{args.ledger}: chain holds")
    return 0
