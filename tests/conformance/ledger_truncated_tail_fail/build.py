"""Builds the ledger_truncated_tail_fail case from the demo bundle."""

from __future__ import annotations

from audit.seal import ledger


def build(ws) -> None:
    path = ws.make_ledger()
    ws.args["verify-ledger"] = ["--head", ledger.head(path)]
    ws.write_ledger_lines(ws.ledger_lines()[:-1])
