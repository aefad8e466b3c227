"""Builds the ledger_duplicate_key_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.make_ledger()
    lines = ws.ledger_lines()
    assert lines[1].startswith("{")
    lines[1] = '{"blake3":"' + "0" * 64 + '",' + lines[1][1:]
    ws.write_ledger_lines(lines)
