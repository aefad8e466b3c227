"""Record finished outputs in the ledger and leave a receipt for the DAG."""

from __future__ import annotations

import json

from audit import ledger
from audit.files import write_atomic


def record(ledger_path: str, files: list[str], receipt: str) -> list[dict]:
    entries = [ledger.append(ledger_path, "output_recorded", f) for f in files]
    body = {"recorded": [{"subject": e["subject"], "blake3": e["blake3"]} for e in entries]}
    write_atomic(receipt, json.dumps(body, indent=2, sort_keys=True) + "\n")
    return entries
