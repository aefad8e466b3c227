"""Command line of the controls: ``python -m controls <command> ...``.

Each command takes every control of the arm it is given (``--control``, once per
control) and works in one process:

- ``predict``: each control's effect from the unperturbed bundle, then its stamp
  (``<controls>/<c>/prediction.csv``, ``selection.json``, ``stamp.json``);
- ``perturb``: each stamped control's perturbed bundle (``<controls>/<c>/bundle/``)
  and its event file (``<events>/perturb-<c>.json``), after checking the stamp;
- ``predict-perturb``: the two in one process, the prereg and the source read once
  (the DAG's job): every control predicted and stamped first, then each perturbed
  bundle, its stamp checked first, as ``perturb`` checks it;
- ``check``: each control's measured change against its prediction
  (``<controls>/<c>/check.csv``, ``verdict.json``), then the table over all
  (``--out-csv``, ``--out-md``).

The arm's kind (``--kind``, audit/kinds/arm_kind.py) decides what a control reads
(its ``controls`` source): a leaderboard arm's bundle (``--bundle``, ``--lock``), or
a trials arm's table (``--table``); with ranks declared, a swap also reads the
unperturbed run's rank census (``--ranks``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.errors import AuditError, disk_full, report
from audit.files import write_atomic
from audit.kinds import arm_kind
from controls.errors import ControlError

if TYPE_CHECKING:  # the records' types only: each command imports what it uses
    from audit.cells.record import Prereg as LeaderboardPrereg
    from audit.trials.record import Prereg as TrialsPrereg

# Each command imports what it uses: a check starts without polars.


def _source(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prereg", required=True, help="the locked prereg")
    arm_kind.add_argument(p)
    p.add_argument("--control", action="append", required=True, help="a control, once each")
    p.add_argument("--bundle", help="a leaderboard arm: the bundle folder")
    p.add_argument("--lock", help="a leaderboard arm: the lock's files.json, the bytes to read")
    p.add_argument("--table", help="a trials arm: the trial table (or the registry) to perturb")
    p.add_argument("--ranks", help="an arm declaring ranks: the unperturbed run's folder "
                   "with ranks.csv and rank_pairs.csv (a swap predicts them)")  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m controls", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("predict", help="predict and stamp each control's effect")
    _source(p)
    p.add_argument("--out", required=True, help="the controls folder: <out>/<control>/")

    p = sub.add_parser("perturb", help="build each control's perturbed bundle, once stamped")
    _source(p)
    p.add_argument("--controls", required=True, help="the controls folder predict wrote")
    p.add_argument("--events", required=True, help="folder of the perturb-<control>.json events")

    p = sub.add_parser("predict-perturb", help="predict and stamp every control, then build "
                       "each perturbed bundle, its stamp checked first")  # fmt: skip
    _source(p)
    p.add_argument("--out", required=True, help="the controls folder: <out>/<control>/")
    p.add_argument("--events", required=True, help="folder of the perturb-<control>.json events")

    p = sub.add_parser("check", help="measured against predicted, for every control")
    p.add_argument("--prereg", required=True, help="the locked prereg (its disclosure)")
    arm_kind.add_argument(p)
    p.add_argument("--control", action="append", default=[], help="a control, once each")
    p.add_argument("--controls", required=True, help="the controls folder")
    p.add_argument("--before", nargs=2, action="append", metavar=("IMPL", "DIR"), required=True,
                   help="a contestant's unperturbed run")  # fmt: skip
    p.add_argument("--out-csv", required=True, help="the table over every control (CSV)")
    p.add_argument("--out-md", required=True, help="the same table for people (Markdown)")
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
    except OSError as err:
        full = disk_full(err)
        if full is None:
            raise
        return report(full)


def _run(args: argparse.Namespace) -> int:
    kind = arm_kind.named(args.kind)
    if args.command == "check":
        return _check(args, kind)
    rec = _prereg(args, kind)
    steps = STEPS[args.command]
    if "perturb" in steps and "predict" not in steps:
        args.out = args.controls  # the folder predict wrote, where the stamps are
    SOURCES[kind.controls](args, rec, steps)
    return 0


def _prereg(args: argparse.Namespace, kind: arm_kind.Kind) -> Any:
    """The locked prereg's frozen record (its kind's: audit/cells/record.py or
    audit/trials/record.py), checked as its kind's lock checks it, every control named in
    it, the source given."""
    rec = kind.entry("record")(args.prereg)
    for name in args.control:
        if name not in rec.controls:
            raise AuditError("bad_prereg", args.prereg, f"no control named {name!r}")
    given = f"--{kind.controls}"
    if getattr(args, kind.controls) is None:
        raise AuditError("bad_config", args.prereg, f"this arm's controls need {given}")
    return rec


def _predict_each(args: argparse.Namespace, predict_one) -> None:
    """Each control's prediction and selection, then its stamp (before any perturbed bundle)."""
    from audit.seal.stamp import stamp
    from controls.predict import selection_json

    for name in args.control:
        folder = Path(args.out) / name
        table, selection = predict_one(name)
        write_atomic(folder / "selection.json", selection_json(selection))
        write_atomic(folder / "prediction.csv", table)
        files = [str(folder / "prediction.csv"), str(folder / "selection.json")]
        stamp(files, str(folder / "stamp.json"))  # before any perturbed bundle exists
        if "skipped" in selection:
            print(f"{name}: skipped ({selection['skipped']}); stamped")
        else:
            print(f"{name}: {table.count(chr(10)) - 1} value(s) predicted and stamped")


def _perturb_each(args: argparse.Namespace, perturb_one) -> None:
    """Each stamped control's perturbed bundle and its event file, the stamp checked first."""
    from audit.seal import ledger
    from controls.stamped import check_stamp

    for name in args.control:
        folder = Path(args.out) / name
        stamp = str(folder / "stamp.json")
        prediction, selection = str(folder / "prediction.csv"), str(folder / "selection.json")
        check_stamp(stamp, [prediction, selection])
        paths = perturb_one(selection, str(folder / "bundle"))
        ledger.write_events(
            Path(args.events) / f"perturb-{name}.json",
            [ledger.record("bundle_perturbed", p, {"stamp": stamp}) for p in paths],
        )
        print(f"{name}: perturbed bundle built")


def _table(args: argparse.Namespace, rec: TrialsPrereg, steps: tuple[str, ...]) -> None:
    """A trials arm's controls: ``steps`` in order over its trial table (or registry)."""
    if "predict" in steps:
        from controls import sources

        swaps = [n for n in args.control if rec.controls[n].kind == "swap"]
        if swaps and rec.ranks and args.ranks is None:
            raise AuditError("bad_config", args.prereg, "the prereg declares ranks: give --ranks")
        rows = sources.read_rows(rec, args.table)
        _predict_each(args, lambda name: sources.predict(rec, rows, name, args.ranks))
    if "perturb" in steps:
        from controls.trials_perturb import perturb as perturb_trials

        _perturb_each(args, lambda sel, out: perturb_trials(rec, args.table, sel, out))


def _bundle(args: argparse.Namespace, record: LeaderboardPrereg, steps: tuple[str, ...]) -> None:
    """A leaderboard arm's controls: ``steps`` in order over its locked bundle, copied
    and checked against the lock once."""
    from audit.seal.locked import locked_bundle

    if "predict" in steps and record.ranks is not None and args.ranks is None:
        raise AuditError("bad_config", args.prereg, "the prereg declares ranks: give --ranks")
    with locked_bundle(args.bundle, args.lock) as bundle:
        if "predict" in steps:
            _predict_bundle(args, record, bundle)
        if "perturb" in steps:
            _perturb_bundle(args, record, bundle)


def _predict_bundle(args: argparse.Namespace, record, bundle: str) -> None:
    """Every control's prediction and stamp; the tables read for them are freed on return,
    before the perturbation reads the instance table whole."""
    from audit.cells.universe import inlined
    from controls.exact import bundle_reader
    from controls.predict import predict

    listed = inlined(record, bundle)  # a universe declared as a table: its ids, listed
    read = bundle_reader(bundle, listed)  # read once for every control
    _predict_each(args, lambda name: predict(listed, bundle, name, read, args.ranks))


def _perturb_bundle(args: argparse.Namespace, record, bundle: str) -> None:
    from controls.perturb import perturb, reader

    table = reader(record, bundle)  # read once for every control
    _perturb_each(args, lambda sel, out: perturb(record, bundle, sel, out, table))


def _check_table(sel: dict, prediction: str, before: dict, after: dict, out_csv: str,
                 out_json: str) -> dict:  # fmt: skip
    from controls.trials_check import check as check_trials

    return check_trials(sel, prediction, before, after, out_csv, out_json)


def _check_bundle(sel: dict, prediction: str, before: dict, after: dict, out_csv: str,
                  out_json: str) -> dict:  # fmt: skip
    from controls.check import check

    return check(sel["control"], sel["kind"], sel, prediction, before, after, out_csv, out_json)


# Each controls source (Kind.controls): how its controls are predicted and perturbed
# (the steps of a command, in order), and checked.
SOURCES = {"bundle": _bundle, "table": _table}
STEPS = {
    "predict": ("predict",),
    "perturb": ("perturb",),
    "predict-perturb": ("predict", "perturb"),
}
CHECK = {"bundle": _check_bundle, "table": _check_table}


def _check(args: argparse.Namespace, kind: arm_kind.Kind) -> int:
    from controls.stamped import check_stamp
    from controls.summary import summarise, tally

    before = dict(args.before)
    verdicts, checks = [], []
    for name in args.control:
        folder = Path(args.controls) / name
        prediction, selection = str(folder / "prediction.csv"), str(folder / "selection.json")
        check_stamp(str(folder / "stamp.json"), [prediction, selection])
        sel = json.loads(Path(selection).read_text(encoding="utf-8"))
        after = {i: str(folder / i) for i in before}
        out_csv, out_json = str(folder / "check.csv"), str(folder / "verdict.json")
        v = CHECK[kind.controls](sel, prediction, before, after, out_csv, out_json)
        print(f"{v['control']}: {v['verdict']} {'; '.join(v['reasons'])}")
        verdicts.append(out_json)
        checks.append(out_csv)
    rec = kind.locked_record(args.prereg)  # its disclosure and controls, as locked
    rows = summarise(verdicts, checks, rec, args.out_csv, args.out_md)
    print(f"controls: {tally(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
