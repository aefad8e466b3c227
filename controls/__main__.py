"""Command line of the controls: ``python -m controls <command> ...``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from audit.errors import AuditError, report
from audit.files import write_atomic
from controls.errors import ControlError

# Each command imports what it uses: a check or the summary starts without polars.


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m controls", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("predict", help="predict a control's effect from the unperturbed bundle")
    p.add_argument("--prereg", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--control", required=True)
    p.add_argument("--lock", default=None, help="the lock's files.json: read only those bytes")
    p.add_argument("--out-prediction", required=True)
    p.add_argument("--out-selection", required=True)

    p = sub.add_parser("perturb", help="build the perturbed bundle from a stamped selection")
    p.add_argument("--prereg", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--selection", required=True)
    p.add_argument("--prediction", required=True)
    p.add_argument("--stamp", required=True)
    p.add_argument("--events", required=True, help="event file recording the perturbed bundle")
    p.add_argument("--lock", default=None, help="the lock's files.json: read only those bytes")
    p.add_argument("--out", required=True)

    p = sub.add_parser("check", help="measured against predicted, for both contestants")
    p.add_argument("--selection", required=True)
    p.add_argument("--prediction", required=True)
    p.add_argument("--stamp", required=True)
    p.add_argument("--before", nargs=2, action="append", metavar=("IMPL", "DIR"), required=True)
    p.add_argument("--after", nargs=2, action="append", metavar=("IMPL", "DIR"), required=True)
    p.add_argument("--out-csv", required=True)
    p.add_argument("--out-json", required=True)

    p = sub.add_parser("predict-trials", help="a trials-v1 control's effect, from its table")
    p.add_argument("--prereg", required=True)
    p.add_argument("--table", required=True, help="the adapter's trials.parquet, or the registry")
    p.add_argument("--control", required=True)
    p.add_argument("--out-prediction", required=True)
    p.add_argument("--out-selection", required=True)

    p = sub.add_parser("perturb-trials", help="the perturbed trial table, from a stamped selection")
    p.add_argument("--prereg", required=True)
    p.add_argument("--table", required=True)
    p.add_argument("--selection", required=True)
    p.add_argument("--prediction", required=True)
    p.add_argument("--stamp", required=True)
    p.add_argument("--events", required=True, help="event file recording the perturbed table")
    p.add_argument("--out", required=True)

    p = sub.add_parser("check-trials", help="a trial control: measured against predicted")
    p.add_argument("--selection", required=True)
    p.add_argument("--prediction", required=True)
    p.add_argument("--stamp", required=True)
    p.add_argument("--before", nargs=2, action="append", metavar=("IMPL", "DIR"), required=True)
    p.add_argument("--after", nargs=2, action="append", metavar=("IMPL", "DIR"), required=True)
    p.add_argument("--out-csv", required=True)
    p.add_argument("--out-json", required=True)

    p = sub.add_parser("summary", help="one table over every control")
    p.add_argument("--verdicts", nargs="*", required=True)  # none: no controls
    p.add_argument("--checks", nargs="*", required=True)
    p.add_argument("--prereg", required=True, help="the locked prereg (its disclosure)")
    p.add_argument("--out-csv", required=True)
    p.add_argument("--out-md", required=True)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except AuditError as err:
        return report(err)
    except ControlError as err:
        print(f"error[control]: {err}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.command == "predict":
        from audit.cells import prereg
        from audit.seal.locked import locked_bundle
        from controls.predict import predict, selection_json

        doc = prereg.load(args.prereg)
        if args.control not in doc["controls"]:
            raise AuditError("bad_prereg", args.prereg, f"no control named {args.control!r}")
        with locked_bundle(args.bundle, args.lock) as bundle:
            table, selection = predict(doc, bundle, args.control)
        write_atomic(args.out_selection, selection_json(selection))
        write_atomic(args.out_prediction, table)
        if "skipped" in selection:
            print(f"{args.control}: skipped ({selection['skipped']})")
        else:
            print(f"{args.control}: {table.count(chr(10)) - 1} cell(s) predicted")
    elif args.command == "perturb":
        from audit.cells import prereg
        from audit.seal import ledger
        from audit.seal.locked import locked_bundle
        from controls.perturb import perturb
        from controls.stamped import check_stamp

        check_stamp(args.stamp, [args.prediction, args.selection])
        with locked_bundle(args.bundle, args.lock) as bundle:
            paths = perturb(prereg.load(args.prereg), bundle, args.selection, args.out)
        ledger.write_events(
            args.events,
            [ledger.record("bundle_perturbed", p, {"stamp": args.stamp}) for p in paths],
        )
    elif args.command == "check":
        from controls.check import check
        from controls.stamped import check_stamp

        check_stamp(args.stamp, [args.prediction, args.selection])
        sel = json.loads(Path(args.selection).read_text())
        v = check(
            sel["control"],
            sel["kind"],
            sel,
            args.prediction,
            dict(args.before),
            dict(args.after),
            args.out_csv,
            args.out_json,
        )
        print(f"{v['control']}: {v['verdict']} {'; '.join(v['reasons'])}")
    elif args.command == "predict-trials":
        from audit.trials import prereg as trials_prereg
        from controls import sources
        from controls.predict import selection_json

        doc = trials_prereg.load(args.prereg)
        if args.control not in doc["controls"]:
            raise AuditError("bad_prereg", args.prereg, f"no control named {args.control!r}")
        rows = sources.read_rows(doc, args.table)
        table, selection = sources.predict(doc, rows, args.control)
        write_atomic(args.out_selection, selection_json(selection))
        write_atomic(args.out_prediction, table)
        print(f"{args.control}: {table.count(chr(10)) - 1} value(s) predicted")
    elif args.command == "perturb-trials":
        from audit.seal import ledger
        from audit.trials import prereg as trials_prereg
        from controls.stamped import check_stamp
        from controls.trials_perturb import perturb as perturb_trials

        check_stamp(args.stamp, [args.prediction, args.selection])
        doc = trials_prereg.load(args.prereg)
        paths = perturb_trials(doc, args.table, args.selection, args.out)
        ledger.write_events(
            args.events,
            [ledger.record("bundle_perturbed", p, {"stamp": args.stamp}) for p in paths],
        )
    elif args.command == "check-trials":
        from controls.stamped import check_stamp
        from controls.trials_check import check as check_trials

        check_stamp(args.stamp, [args.prediction, args.selection])
        sel = json.loads(Path(args.selection).read_text())
        v = check_trials(
            sel, args.prediction, dict(args.before), dict(args.after), args.out_csv, args.out_json
        )
        print(f"{v['control']}: {v['verdict']} {'; '.join(v['reasons'])}")
    elif args.command == "summary":
        from controls.summary import summarise, tally

        rows = summarise(args.verdicts, args.checks, args.prereg, args.out_csv, args.out_md)
        print(f"controls: {tally(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
