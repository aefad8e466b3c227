"""The tables an intake adapter writes: trials.parquet, items.parquet and claim.json."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from audit.files import write_atomic
from audit.trials.adapter import SCHEMA as TRIAL_SCHEMA
from audit.trials.compare_items import ITEM_SCHEMA


def write(out: str, trials: list[dict], items: list[dict], doc: dict) -> dict:
    """Each table through a temporary file renamed into place; the claim last."""
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, rows, schema in (
        ("trials.parquet", trials, TRIAL_SCHEMA),
        ("items.parquet", items, ITEM_SCHEMA),
    ):
        tmp = out_dir / f".{name}.tmp"
        pl.DataFrame(rows, schema=schema).write_parquet(tmp)
        tmp.replace(out_dir / name)
    write_atomic(out_dir / "claim.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return doc
