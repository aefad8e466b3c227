"""One place decides which reading a trials-v1 control uses: the trial table's
(controls/trials_predict.py) or the registry table's (controls/registry_predict.py),
and a swap's, of either (controls/trials_swap.py)."""

from __future__ import annotations

from pathlib import Path

from audit.trials.record import Prereg
from controls import registry_exact, registry_predict, trials_exact, trials_predict, trials_swap


def is_registry(rec: Prereg) -> bool:
    return not rec.trials_source


def read_rows(rec: Prereg, table: str | Path | bytes) -> list[dict]:
    """The rows a prediction reads from the unperturbed table (its file, or its parquet
    bytes: preflight's adapted trial table, audit/preflight.py)."""
    if is_registry(rec):
        return registry_exact.read_rows(rec.source, table)
    return trials_exact.read_rows(table)


def predict(rec: Prereg, rows: list[dict], name: str, ranks: str | None = None) -> tuple[str, dict]:
    """The prediction table and the selection; ``ranks``: the unperturbed run's folder of
    rank files, which a swap's prediction relabels when the prereg declares ranks."""
    if rec.controls[name].kind == "swap":
        return trials_swap.predict(rec, rows, name, ranks)
    if is_registry(rec):
        return registry_predict.predict(rec, rows, name)
    return trials_predict.predict(rec, rows, name)


def apply(rec: Prereg, rows: list[dict], sel: dict) -> list[dict]:
    """The stamped selection's edit, on rows of every column of the table."""
    if sel["kind"] == "swap":
        return trials_swap.apply(rec, rows, sel)
    if is_registry(rec):
        return registry_predict.apply(rec.source, rows, sel)
    return trials_predict.apply(rows, sel)


def targets(sel: dict) -> list[str]:
    """The entries (runs of a trial table, entries of a registry) a control edits: one,
    or a swap's two."""
    if "row_ids" in sel:
        return list(sel["row_ids"])
    return [sel["entry"] if "entry" in sel else sel["run"]]
