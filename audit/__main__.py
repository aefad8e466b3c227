"""Command line of the referee: ``python -m audit <command> ...``."""

from __future__ import annotations

import argparse
import sys

from audit.errors import AuditError, report


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m audit", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("lock", help="check the prereg's blake3, hash the bundle, start the ledger")
    p.add_argument("--prereg", required=True)
    p.add_argument("--expected-blake3", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--out-dir", required=True)
    p.add_argument("--ledger", required=True)

    p = sub.add_parser("same-runs", help="require byte-identical outputs from repeated runs")
    p.add_argument("runs", nargs="+")
    p.add_argument("--out", required=True)

    p = sub.add_parser("agree", help="compare the two implementations cell by cell")
    p.add_argument("--a", required=True, help="first contestant's output folder")
    p.add_argument("--b", required=True, help="second contestant's output folder")
    p.add_argument("--names", nargs=2, default=["pandas", "pyarrow"])
    p.add_argument("--out-json", required=True)
    p.add_argument("--out-md", required=True)

    p = sub.add_parser("census", help="totals per class and the per-column table")
    p.add_argument("--agreement", required=True)
    p.add_argument("--cells", required=True, help="an agreed contestant output folder")
    p.add_argument("--prereg", required=True)
    p.add_argument("--lock", required=True)
    p.add_argument("--out-dir", required=True)

    p = sub.add_parser("demo-bundle", help="write the embedded demo bundle")
    p.add_argument("--out", required=True)

    p = sub.add_parser("record", help="append output_recorded lines to the ledger")
    p.add_argument("files", nargs="+")
    p.add_argument("--ledger", required=True)
    p.add_argument("--receipt", required=True, help="file listing the lines written")

    p = sub.add_parser("stamp", help="stamp predictions in the ledger before they are tested")
    p.add_argument("files", nargs="+")
    p.add_argument("--ledger", required=True)
    p.add_argument("--receipt", required=True)

    p = sub.add_parser("verify-ledger", help="walk a ledger's hash chain and rehash its subjects")
    p.add_argument("ledger")
    p.add_argument("--head", default=None)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except AuditError as err:
        return report(err)


def _run(args: argparse.Namespace) -> int:
    if args.command == "lock":
        from audit.lock import lock

        rec = lock(args.prereg, args.expected_blake3, args.bundle, args.out_dir, args.ledger)
        print(f"locked prereg {rec['prereg']['name']} blake3 {rec['prereg']['blake3']}")
    elif args.command == "same-runs":
        from audit.runs import same_runs

        res = same_runs(args.runs, args.out)
        print(f"{res['runs']} runs byte-identical: {', '.join(sorted(res['files']))}")
    elif args.command == "agree":
        from audit.agree import agree

        rep = agree(args.a, args.b, tuple(args.names), args.out_json, args.out_md)
        print(
            f"agreement: {rep['census_cells_compared']} cells, {rep['disagreements']} disagreement(s)"
        )
    elif args.command == "census":
        from audit.census import summarise

        summarise(args.agreement, args.cells, args.prereg, args.lock, args.out_dir)
    elif args.command == "demo-bundle":
        from audit.demo_bundle import write

        write(args.out)
    elif args.command == "record":
        from audit.record import record

        entries = record(args.ledger, args.files, args.receipt)
        print(f"ledger: {len(entries)} output(s) recorded, head {entries[-1]['hash']}")
    elif args.command == "stamp":
        from audit.stamp import stamp

        for e in stamp(args.ledger, args.files, args.receipt):
            print(f"stamped {e['subject']} at ledger line {e['seq']}")
    elif args.command == "verify-ledger":
        from audit.ledger import verify

        problems = verify(args.ledger, args.head)
        for line in problems:
            print(line, file=sys.stderr)
        if problems:
            return 1
        print(f"{args.ledger}: chain holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
