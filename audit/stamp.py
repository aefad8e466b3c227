"""Stamp files in the ledger once; a changed file can never be stamped again."""

from __future__ import annotations

import json
from pathlib import Path

from audit import ledger
from audit.errors import FAILED, AuditError
from audit.files import file_blake3, write_atomic


def stamp(ledger_path: str, files: list[str], receipt: str) -> list[dict]:
    lines = [json.loads(x) for x in Path(ledger_path).read_text(encoding="utf-8").splitlines() if x]
    done = {e["subject"]: e for e in lines if e.get("event") == "prediction_stamped"}
    out = []
    for f in files:
        if f in done:
            if file_blake3(f) != done[f]["blake3"]:
                raise AuditError(
                    "changed_after_stamp",
                    f,
                    f"blake3 is {file_blake3(f)} but ledger line {done[f]['seq']} stamped "
                    f"{done[f]['blake3']}; a prediction cannot change after it is stamped",
                    FAILED,
                )
            entry = done[f]
        else:
            entry = ledger.append(ledger_path, "prediction_stamped", f)
        out.append({"subject": f, "blake3": entry["blake3"], "seq": entry["seq"]})
    body = {"stamped": [{"subject": e["subject"], "blake3": e["blake3"]} for e in out]}
    write_atomic(receipt, json.dumps(body, indent=2, sort_keys=True) + "\n")
    return out
