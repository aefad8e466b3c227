"""A trial table already written (``trial-table-v1``, docs/trials-contract.md section 2):
a folder holding ``trials.parquet`` as ``adapt-inspect`` and ``adapt-eee`` write it,
read whole, its columns and types checked against the schema, its rows put in the
adapter's order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters.base import SCHEMA, STATUSES, Options, refuse_empty
from audit.errors import AuditError
from audit.files import file_blake3

FORMAT = "trial-table-v1"  # a trial table an intake adapter wrote (adapt-inspect, adapt-eee)
LOOKED_FOR = "trials.parquet (the trial table)"


def adapt(jobs: str, options: Options) -> tuple[pl.DataFrame, dict[str, Any]]:
    """(trial table, adapter.json document) of the folder ``jobs``. Writes nothing."""
    path = Path(jobs) / "trials.parquet"
    if not path.is_file():
        raise AuditError("missing_file", str(path), "no trial table in the folder")
    try:
        got = pl.read_parquet_schema(path)
    except Exception as e:  # noqa: BLE001 - any footer failure is one unusable-input line
        raise AuditError("unreadable", str(path), f"not parquet ({type(e).__name__})") from None
    if list(got) != list(SCHEMA):
        missing = [c for c in SCHEMA if c not in got]
        extra = [c for c in got if c not in SCHEMA]
        raise AuditError(
            "bad_type",
            str(path),
            f"not the trial table's columns (missing {missing or 'none'}, "
            f"unknown {extra or 'none'}, or out of order)",
        )
    for name, dtype in SCHEMA.items():
        if got[name] != dtype and got[name] != pl.Null:
            raise AuditError("bad_type", str(path), f"column {name!r} is {got[name]}, not {dtype}")
    try:
        table = pl.read_parquet(path).cast(SCHEMA)
    except Exception as e:  # noqa: BLE001
        raise AuditError("unreadable", str(path), f"a page cannot be read ({type(e).__name__})")
    refuse_empty(table, jobs, LOOKED_FOR)
    table = table.sort(["run", "task", "trial_id", "copy"])
    runs: dict[str, Any] = {}
    for row in table.select("run", "status").iter_rows():
        info = runs.setdefault(row[0], {"rows": 0, "statuses": dict.fromkeys(STATUSES, 0)})
        info["rows"] += 1
        if row[1] in info["statuses"]:
            info["statuses"][row[1]] += 1
    doc = {
        "format": FORMAT,
        "files": [{"path": "trials.parquet", "blake3": file_blake3(path)}],
        "runs": runs,
    }
    return table, doc


def summary_lines(table: pl.DataFrame, doc: dict[str, Any]) -> list[str]:
    return [
        f"{run}: {info['rows']} rows; scored {info['statuses']['scored']}, errored "
        f"{info['statuses']['errored']}, unscored {info['statuses']['unscored']}"
        for run, info in doc["runs"].items()
    ]
