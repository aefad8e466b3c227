"""Builds the ledger_swapped_lines_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger()
    lines = ws.ledger_lines()
    lines[1], lines[2] = lines[2], lines[1]
    ws.write_ledger_lines(lines)
