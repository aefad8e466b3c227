"""The controls' targets judged before the lock, by the controls' own choice code: each
control's rows, instances, entries or runs chosen from the unperturbed tables as its job
will choose them (its order, the prereg's seed), and a control they cannot take refused
with the line that job prints (controls/__main__.py). One place for preflight (a shipped
bundle, audit/preflight.py) and the lock (a bundle a rule builds, or a trials source's
table past preflight's bound, audit/lock/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit.errors import AuditError
from controls.errors import ControlError


def refused(err: Exception, name: str) -> AuditError:
    """A control's ControlError as the controls' job prints it (controls/__main__.py):
    `error[control]: control <name>: <problem>`, the control in the place of a file."""
    head = f"control {name}"
    return AuditError("control", head, str(err).removeprefix(f"{head}: "))


def check_leaderboard(rec: Any, bundle: str) -> None:
    """A leaderboard arm's controls (controls/predict.py check_target): a seeded control
    no row can take, a named row that cannot take it (a flip, nullify or shift needing
    more instances than the row has). Tables not there, or values the controls cannot
    read, are left to the job. ``rec``: the checked prereg's record (audit/cells/record.py)."""
    from audit.cells.universe import inlined
    from controls.exact import bundle_reader
    from controls.predict import check_target

    if not rec.controls:
        return
    b = rec.bundle
    if not (Path(bundle, b.leaderboard).is_file() and Path(bundle, b.instances).is_file()):
        return
    listed = inlined(rec, bundle)  # as the job lists a universe table's ids
    read = bundle_reader(bundle, listed)  # read once for every control, as the job reads it
    for name in sorted(rec.controls):  # the job's order (the arm's controls, sorted)
        try:
            check_target(listed, bundle, name, read)
        except ControlError as err:
            raise refused(err, name) from None
        except AuditError:
            raise
        except Exception:  # noqa: BLE001 - values the controls cannot read: the
            return  # contestants' and the job's to refuse, as before


def check_trials(rec: Any, table: str | Path | bytes) -> None:
    """A trials arm's controls, each predicted (controls/sources.py) from ``table``: the
    registry table's path, or the trial table (the adapter's trials.parquet, or its bytes
    as the adapter job writes them); a control no entry or run can take, a named one that
    cannot take it, or a policy it cannot predict is refused. Values the controls cannot
    read are left to the job. ``rec``: the checked prereg's record (audit/trials/record.py)."""
    if not rec.controls:
        return
    from controls import sources

    try:
        rows = sources.read_rows(rec, table)
    except Exception:  # noqa: BLE001 - a table polars cannot read (an ARROW:schema that
        return  # does not parse): the lock's unreadable
    for name in sorted(rec.controls):  # the job's order (the arm's controls, sorted)
        try:
            sources.predict(rec, rows, name)  # no rank census yet: a swap's is relabelled after
        except ControlError as err:
            raise refused(err, name) from None
        except AuditError:
            raise
        except Exception:  # noqa: BLE001 - values the controls cannot read: the job's, as before
            return
