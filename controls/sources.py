"""One place decides which reading a trials-v1 control uses: the trial table's
(controls/trials_predict.py) or the registry table's (controls/registry_predict.py)."""

from __future__ import annotations

from pathlib import Path

from controls import registry_exact, registry_predict, trials_exact, trials_predict


def is_registry(doc: dict) -> bool:
    return doc["source"]["kind"] == "registry"


def read_rows(doc: dict, table: str | Path) -> list[dict]:
    """The rows a prediction reads from the unperturbed table."""
    if is_registry(doc):
        return registry_exact.read_rows(doc, table)
    return trials_exact.read_rows(table)


def predict(doc: dict, rows: list[dict], name: str) -> tuple[str, dict]:
    if is_registry(doc):
        return registry_predict.predict(doc, rows, name)
    return trials_predict.predict(doc, rows, name)


def apply(doc: dict, rows: list[dict], sel: dict) -> list[dict]:
    """The stamped selection's edit, on rows of every column of the table."""
    if is_registry(doc):
        return registry_predict.apply(doc["source"], rows, sel)
    return trials_predict.apply(rows, sel)


def target(sel: dict) -> str:
    """The entry (a run of a trial table, an entry of a registry) a control edits."""
    return sel["entry"] if "entry" in sel else sel["run"]
