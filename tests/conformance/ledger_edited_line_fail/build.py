"""Builds the ledger_edited_line_fail case from the demo bundle."""

from __future__ import annotations

import json


def build(ws) -> None:
    ws.make_ledger()
    lines = ws.ledger_lines()
    entry = json.loads(lines[1])
    entry["blake3"] = "0" * 64
    lines[1] = json.dumps(entry, sort_keys=True, separators=(",", ":")) + "\n"
    ws.write_ledger_lines(lines)
