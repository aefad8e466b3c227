"""Builds the ledger_deleted_line_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger()
    lines = ws.ledger_lines()
    del lines[2]
    ws.write_ledger_lines(lines)
