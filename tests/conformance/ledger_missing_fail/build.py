"""Builds the ledger_missing_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger().unlink()
