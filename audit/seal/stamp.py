"""Stamp predictions before they are tested: the control's event file, written once."""

from __future__ import annotations

from pathlib import Path

from audit.errors import FAILED, AuditError
from audit.seal import ledger


def stamp(files: list[str], events: str) -> list[dict]:
    """Write ``prediction_stamped`` for each file; refuse to restamp changed bytes.

    The event file is the stamp job's output and the perturbation's input, so the
    perturbed bundle cannot be built before it exists (docs/seal.md). Snakemake
    removes a job's outputs before it runs the job again, so the first stamp is
    also kept beside it, as ``<stamp>.first.json``, which no rule declares: a
    prediction whose bytes changed after it was first stamped is refused there."""
    out = [ledger.record("prediction_stamped", f) for f in files]
    first = Path(events).with_suffix(".first.json")
    if first.is_file():
        done = {r["subject"]: r for r in ledger.read_events(first)}
        for r in out:
            old = done.get(r["subject"])
            if old is not None and old["blake3"] != r["blake3"]:
                raise AuditError(
                    "changed_after_stamp",
                    str(r["subject"]),
                    f"blake3 is {r['blake3']} but {first} stamped {old['blake3']} at "
                    f"{old.get('time')}; a prediction cannot change after it is stamped",
                    FAILED,
                )
        if all(r["subject"] in done for r in out):
            out = [done[r["subject"]] for r in out]  # the first stamp stands, times and all
    else:
        ledger.write_events(first, out)
    ledger.write_events(events, out)
    return out


def stamped(events: str) -> dict[str, str]:
    """subject -> blake3 of what a stamp event file stamped."""
    return {
        str(r["subject"]): str(r["blake3"])
        for r in ledger.read_events(events)
        if r["event"] == "prediction_stamped"
    }
