"""Record finished outputs: the outputs' event file, chained into the ledger at the seal."""

from __future__ import annotations

from audit.seal import ledger


def record(files: list[str], events: str) -> list[dict]:
    entries = [ledger.record("output_recorded", f) for f in files]
    ledger.write_events(events, entries)
    return entries
