"""What the trial-table intake adapters share: reading a batch of records (one unreadable
record listed and skipped, unless the user asks for all or nothing) and writing
trials.parquet, items.parquet, leaderboard.parquet and claim.json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters.base import SCHEMA as TRIAL_SCHEMA
from audit.errors import AuditError
from audit.files import write_atomic

# A record that cannot be read at all (no such file, not the format's bytes, its
# sidecar absent) is skipped with its reason in a batch; a record that reads but
# contradicts itself (a checksum, a count, a duplicate) refuses the batch.
SKIPPABLE = ("missing_file", "unreadable")

# The per-item record the adapters write (items.parquet) for compare-items
# (audit/trials/compare_items.py) to read.
ITEM_SCHEMA = {
    "item_id": pl.String,
    "run": pl.String,
    "epoch": pl.Int64,
    "input": pl.String,
    "prompt": pl.String,
    "output": pl.String,
    "answer": pl.String,
    "score": pl.Float64,
    "target": pl.String,
}


def batch(
    paths: list[str], read_one: Callable[[str], Any], all_or_nothing: bool
) -> tuple[list[tuple[str, Any]], list[dict[str, str]]]:
    """((path, what it gave) for each readable record, in order; each skipped record with
    its reason).

    With ``all_or_nothing``, or when no record can be read, the first failure refuses."""
    got: list[Any] = []
    skipped: list[dict[str, str]] = []
    first: AuditError | None = None
    for path in paths:
        try:
            got.append((path, read_one(path)))
        except AuditError as e:
            if all_or_nothing or e.kind not in SKIPPABLE:
                raise
            first = first or e
            skipped.append({"file": path, "class": e.kind, "detail": f"{e.path}: {e.detail}"})
    if not got and first is not None:
        raise first
    return got, skipped


def skipped_lines(skipped: list[dict[str, str]]) -> list[str]:
    if not skipped:
        return []
    return [f"  skipped {len(skipped)} record(s) that could not be read:"] + [
        f"    {s['file']}: error[{s['class']}]: {s['detail']}" for s in skipped
    ]


def write(
    out: str,
    trials: list[dict],
    items: list[dict],
    doc: dict,
    leaderboard: pl.DataFrame | None = None,
) -> dict:
    """Each table through a temporary file renamed into place; the claim last."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    frames = [
        ("trials.parquet", pl.DataFrame(trials, schema=TRIAL_SCHEMA)),
        ("items.parquet", pl.DataFrame(items, schema=ITEM_SCHEMA)),
    ]
    if leaderboard is not None:
        frames.append(("leaderboard.parquet", leaderboard))
    for name, df in frames:
        tmp = out_dir / f".{name}.tmp"
        df.write_parquet(tmp)
        tmp.replace(out_dir / name)
    write_atomic(out_dir / "claim.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return doc
