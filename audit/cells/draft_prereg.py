"""``python -m audit draft-prereg BUNDLE --out PREREG``: a prereg drafted from the schema alone.

Reads each parquet file's schema (the footer: column names and types) and never a
value, so a user can start the method without having seen the data, which is the
point of preregistering. Every column is listed under ``undecided:`` with its type,
and every decision is the placeholder ``UNDECIDED``; the lock refuses the file until
each column has been moved into a class and each placeholder decided
(``audit.cells.prereg.undecided_items``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from audit.cells.prereg import PLACEHOLDER
from audit.errors import AuditError
from audit.files import write_atomic

HEADER = """\
# secondseat preregistration, drafted by `python -m audit draft-prereg` from the
# column names and types of {bundle} alone: no value was read.
# Before locking: decide every {p} (policies, tolerances, seed, draws, controls,
# the disclosure, the bundle's keys) and move every column out of `undecided:` into one class
# of `columns:` (leaderboard columns) or name it in `bundle:` (instance columns),
# then delete `undecided:`. The lock refuses this file, naming each item, until then.
"""


def schemas(bundle: str) -> dict[str, dict[str, str]]:
    """{file name: {column: type}} from each parquet footer, in file-name order."""
    p = Path(bundle)
    if p.is_file():
        files = [p]
    elif p.is_dir():
        files = sorted(p.glob("*.parquet"))
    else:
        raise AuditError("missing_file", bundle, "no such file or folder")
    if not files:
        raise AuditError("empty", bundle, "no parquet file to draft from")
    out: dict[str, dict[str, str]] = {}
    for f in files:
        try:
            schema = pl.read_parquet_schema(f)
        except Exception as e:  # noqa: BLE001 - any footer failure is one unusable-input line
            raise AuditError(
                "unreadable", str(f), f"no readable parquet schema ({type(e).__name__})"
            )
        if not schema:
            raise AuditError("empty", str(f), "no columns")
        out[f.name] = {name: str(dtype) for name, dtype in schema.items()}
    return out


def _name(bundle: str) -> str:
    stem = Path(bundle).resolve().name
    if Path(bundle).is_file():
        stem = Path(bundle).stem
    slug = re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-._")
    return slug or "draft"


def draft(bundle: str) -> dict[str, Any]:
    tables = schemas(bundle)
    return {
        "version": 1,
        "name": _name(bundle),
        "bundle": {
            "leaderboard": PLACEHOLDER,
            "instances": PLACEHOLDER,
            "row_id": PLACEHOLDER,
            "instance_key": [PLACEHOLDER],
            "group_by": PLACEHOLDER,
        },
        "rounding": PLACEHOLDER,
        "nan_in_sources": PLACEHOLDER,
        "columns": {"structural": [], "no_antecedent": [], "measured": {}},
        "policies": PLACEHOLDER,
        "tolerances": PLACEHOLDER,
        "seed": PLACEHOLDER,
        "null_draws": PLACEHOLDER,
        "controls": PLACEHOLDER,
        # who audits, relations to rows (a list, [] when none), the publication commitment
        "disclosure": {
            "auditor": PLACEHOLDER,
            "relations": PLACEHOLDER,
            "publication": PLACEHOLDER,
        },
        "undecided": tables,
    }


def write(bundle: str, out: str) -> dict[str, Any]:
    """Write the draft to ``out``; an existing file is never overwritten."""
    if Path(out).exists():
        raise AuditError("exists", out, "already exists; a drafted prereg never overwrites one")
    doc = draft(bundle)
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    write_atomic(out, HEADER.format(bundle=Path(bundle).name, p=PLACEHOLDER) + body)
    return doc
