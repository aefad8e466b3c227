"""Builds the ledger_forged_prev_fail case from the demo bundle."""

from __future__ import annotations

import json

from audit.seal import ledger


def build(ws) -> None:
    ws.make_ledger()
    lines = ws.ledger_lines()
    entry = json.loads(lines[3])
    entry["prev"] = "f" * 64
    entry["hash"] = ledger.line_hash(entry)
    lines[3] = ledger.canonical(entry) + "\n"
    ws.write_ledger_lines(lines)
