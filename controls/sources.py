"""One place decides which reading a trials-v1 control uses: the trial table's
(controls/trials_predict.py) or the registry table's (controls/registry_predict.py),
and a swap's, of either (controls/trials_swap.py)."""

from __future__ import annotations

from pathlib import Path

from controls import registry_exact, registry_predict, trials_exact, trials_predict, trials_swap


def is_registry(doc: dict) -> bool:
    return doc["source"]["kind"] == "registry"


def read_rows(doc: dict, table: str | Path) -> list[dict]:
    """The rows a prediction reads from the unperturbed table."""
    if is_registry(doc):
        return registry_exact.read_rows(doc, table)
    return trials_exact.read_rows(table)


def predict(doc: dict, rows: list[dict], name: str, ranks: str | None = None) -> tuple[str, dict]:
    """The prediction table and the selection; ``ranks``: the unperturbed run's folder of
    rank files, which a swap's prediction relabels when the prereg declares ranks."""
    if doc["controls"][name]["kind"] == "swap":
        return trials_swap.predict(doc, rows, name, ranks)
    if is_registry(doc):
        return registry_predict.predict(doc, rows, name)
    return trials_predict.predict(doc, rows, name)


def apply(doc: dict, rows: list[dict], sel: dict) -> list[dict]:
    """The stamped selection's edit, on rows of every column of the table."""
    if sel["kind"] == "swap":
        return trials_swap.apply(doc, rows, sel)
    if is_registry(doc):
        return registry_predict.apply(doc["source"], rows, sel)
    return trials_predict.apply(rows, sel)


def targets(sel: dict) -> list[str]:
    """The entries (runs of a trial table, entries of a registry) a control edits: one,
    or a swap's two."""
    if "row_ids" in sel:
        return list(sel["row_ids"])
    return [sel["entry"] if "entry" in sel else sel["run"]]
