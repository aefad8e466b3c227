"""``python -m audit draft-prereg BUNDLE --out PREREG``: a prereg drafted from the schema alone.

Reads each parquet file's schema (the footer: column names and types) and never a
value, so a user can start the method without having seen the data, which is the
point of preregistering. Every column is listed under ``undecided:`` with its type,
and every decision is the placeholder ``UNDECIDED``; the lock refuses the file until
each column has been moved into a class and each placeholder decided
(``audit.cells.prereg.undecided_items``). The draft holds every key the prereg's
schema requires (``complete``): a key the schema comes to require is drafted with it.
A folder holding a trial table (``trials.parquet``, as ``adapt-eee`` and
``adapt-inspect`` write it) gets a trials-v1 draft whose source is that table.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import yaml

from audit.cells.prereg import PLACEHOLDER, schema
from audit.errors import AuditError
from audit.files import write_atomic

HEADER = """\
# secondseat preregistration, drafted by `python -m audit draft-prereg` from the
# column names and types of {bundle} alone: no value was read.
# Before locking: decide every {p} (the method's decisions: policies, tolerances, seed,
# draws, chance, controls, the disclosure, ...) and move every column out of `undecided:` into
# one class of `columns:` (leaderboard columns) or name it in `bundle:` (instance columns),
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
            schema_ = pl.read_parquet_schema(f)
        except Exception as e:  # noqa: BLE001 - any footer failure is one unusable-input line
            raise AuditError(
                "unreadable", str(f), f"no readable parquet schema ({type(e).__name__})"
            )
        if not schema_:
            raise AuditError("empty", str(f), "no columns")
        out[f.name] = {name: str(dtype) for name, dtype in schema_.items()}
    return out


def slug(stem: str) -> str:
    s = re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-._")
    return s or "draft"


def _name(bundle: str) -> str:
    stem = Path(bundle).resolve().name
    if Path(bundle).is_file():
        stem = Path(bundle).stem
    return slug(stem)


def _undecided_shape(spec: dict[str, Any]) -> Any:
    """A required key's draft: an object of required keys, each drafted alike; else the
    placeholder."""
    if spec.get("type") == "object" and spec.get("required"):
        props = spec.get("properties", {})
        return {k: _undecided_shape(props.get(k, {})) for k in spec["required"]}
    return PLACEHOLDER


def complete(doc: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with every key ``spec`` requires (at every level the schema spells out
    inline) that it lacks drafted as the placeholder."""
    props = spec.get("properties", {})
    for key in spec.get("required", []):
        if key not in doc:
            doc[key] = _undecided_shape(props.get(key, {}))
        elif isinstance(doc[key], dict) and props.get(key, {}).get("type") == "object":
            complete(doc[key], props[key])
    return doc


def draft_of(
    name: str,
    tables: dict[str, dict[str, str]],
    bundle: dict[str, Any] | None = None,
    structural: list[str] | None = None,
) -> dict[str, Any]:
    """The draft: ``bundle`` and ``structural`` where the bundle's maker knows them (an
    adapter's own keys), every other decision the placeholder; every column not named
    there listed under ``undecided:``."""
    known = bundle or {}
    named = {known.get("row_id"), known.get("group_by"), *known.get("instance_key", [])}
    undecided = {
        table: {
            c: t
            for c, t in cols.items()
            if not (c in (structural or []) and table == known.get("leaderboard"))
            and not (c in named and table == known.get("instances"))
        }
        for table, cols in tables.items()
    }
    doc = {
        "version": 1,
        "name": name,
        "bundle": {
            "leaderboard": known.get("leaderboard", PLACEHOLDER),
            "instances": known.get("instances", PLACEHOLDER),
            "row_id": known.get("row_id", PLACEHOLDER),
            "instance_key": list(known.get("instance_key", [PLACEHOLDER])),
            "group_by": known.get("group_by", PLACEHOLDER),
        },
        "rounding": PLACEHOLDER,
        "nan_in_sources": PLACEHOLDER,
        "columns": {"structural": list(structural or []), "no_antecedent": [], "measured": {}},
        "policies": PLACEHOLDER,
        "tolerances": PLACEHOLDER,
        "seed": PLACEHOLDER,
        "null_draws": PLACEHOLDER,
        "chance": {"epsilon": PLACEHOLDER, "threshold": PLACEHOLDER},
        "controls": PLACEHOLDER,
        # who audits, relations to rows (a list, [] when none), the publication commitment
        "disclosure": {
            "auditor": PLACEHOLDER,
            "relations": PLACEHOLDER,
            "publication": PLACEHOLDER,
        },
    }
    complete(doc, schema("prereg"))
    doc["undecided"] = {t: cols for t, cols in undecided.items() if cols}
    return doc


TRIALS = "trials.parquet"  # a trial table (docs/trials-contract.md, section 2)


def trials_draft_of(name: str, tables: dict[str, dict[str, str]]) -> dict[str, Any]:
    """A trials-v1 draft for a folder holding an intake adapter's trial table: its source
    is that table (``trial-table-v1``); a ``leaderboard.parquet`` beside it is the
    leaderboard, keyed by ``run`` as the adapters write it (else the leaderboard is
    undecided); every decision the placeholder."""
    lb = "leaderboard.parquet" if "leaderboard.parquet" in tables else None
    keyed = lb is not None and "run" in tables[lb]
    doc: dict[str, Any] = {
        "version": 1,
        "kind": "trials",
        "name": name,
        "source": {"kind": "trials", "format": "trial-table-v1", "jobs": ".", "table": TRIALS},
        "leaderboard": (
            {
                "table": lb,
                "row_key": ["run"] if keyed else [PLACEHOLDER],
                "columns": {
                    "structural": ["run"] if keyed else [],
                    "no_antecedent": [],
                    "measured": {},
                },
            }
            if lb
            else PLACEHOLDER
        ),
    }
    complete(doc, schema("trials-prereg"))
    if lb:
        cols = {c: t for c, t in tables[lb].items() if not (keyed and c == "run")}
        if cols:
            doc["undecided"] = {lb: cols}
    return doc


def draft(bundle: str) -> dict[str, Any]:
    tables = schemas(bundle)
    if Path(bundle).is_dir() and TRIALS in tables:
        return trials_draft_of(_name(bundle), tables)
    return draft_of(_name(bundle), tables)


def write_doc(out: str | Path, doc: dict[str, Any], source: str) -> None:
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    write_atomic(out, HEADER.format(bundle=source, p=PLACEHOLDER) + body)


def write(bundle: str, out: str) -> dict[str, Any]:
    """Write the draft to ``out``; an existing file is never overwritten."""
    if Path(out).exists():
        raise AuditError("exists", out, "already exists; a drafted prereg never overwrites one")
    doc = draft(bundle)
    write_doc(out, doc, Path(bundle).name)
    return doc
