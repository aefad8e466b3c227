"""Builds the ledger_torn_last_line_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger()
    lines = ws.ledger_lines()
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    ws.write_ledger_lines(lines)
