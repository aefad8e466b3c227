"""Builds the ledger_subject_missing_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger()
    (ws.dir / "results" / "demo" / "agreement.json").unlink()
