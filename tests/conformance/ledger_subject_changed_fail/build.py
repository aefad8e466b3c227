"""Builds the ledger_subject_changed_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger()
    (ws.dir / "results" / "demo" / "census.csv").write_text("edited\n", encoding="utf-8")
