"""A published table's columns, each value as printed where the format keeps it.

The kind is told by the file's first bytes, never by its name alone: parquet
starts with ``PAR1``; otherwise a first non-blank character ``{`` means JSON
lines, anything else CSV. CSV fields and JSON numbers are kept as their text,
so ``87.10`` keeps its two decimals; a parquet float is the decimal of its
repr (no trailing zero), a parquet decimal its digits.
"""

from __future__ import annotations

import csv
import io
import json
import os
from decimal import Decimal
from pathlib import Path

from audit.bundles import parquet_bounds
from audit.errors import AuditError
from audit.files import open_regular

MAX_TEXT = 1 << 30  # a text table over 1 GiB is not a published table


def _no_constant(token: str) -> object:
    raise ValueError(f"{token} is not a JSON number")


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for k, v in pairs:
        if k in out:
            raise KeyError(k)
        out[k] = v
    return out


def _cell(v: object) -> object:
    """A value as the checks read it: text, a float, or None."""
    if v is None or isinstance(v, (str, float)):
        return v
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, Decimal)):
        return str(v)
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def read(path: str, columns: list[str | None]) -> tuple[list[str], list[list[object]]]:
    """The table's column names and, per row, the values of ``columns`` (None picks the first)."""
    p = Path(path)
    with open_regular(p, path) as f:  # a FIFO, device or folder: refused, never waited on
        head = f.read(4)
        size = os.fstat(f.fileno()).st_size
    if head == b"PAR1":
        parquet_bounds.check(p, path)  # too_large from its page headers, before polars
        names, rows = _parquet(path)
    else:
        if size > MAX_TEXT:
            raise AuditError("too_large", path, "a text table over 1 GiB")
        try:
            text = p.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise AuditError("unreadable", path, "not UTF-8 text") from None
        stripped = text.lstrip()
        names, rows = _jsonl(path, text) if stripped.startswith("{") else _csv(path, text)
    if not names:
        raise AuditError("empty", path, "no columns")
    picked = [names[0] if c is None else c for c in columns]
    for c in picked:
        if c not in names:
            raise AuditError("missing_column", path, f"no column {c!r}")
    at = [names.index(c) for c in picked]
    return picked, [[row[i] for i in at] for row in rows]


def _parquet(path: str) -> tuple[list[str], list[list[object]]]:
    import polars as pl

    try:
        frame = pl.read_parquet(path)
    except pl.exceptions.DuplicateError:
        raise AuditError("duplicate_column", path, "a column name occurs twice") from None
    except Exception as e:  # noqa: BLE001 - polars raises several types for a broken file
        raise AuditError(
            "unreadable", path, f"not a readable parquet file ({type(e).__name__})"
        ) from None
    names = frame.columns
    cols = [[_cell(v) for v in frame.get_column(n).to_list()] for n in names]
    return names, [list(r) for r in zip(*cols, strict=True)] if cols else []


def _csv(path: str, text: str) -> tuple[list[str], list[list[object]]]:
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        raise AuditError("unreadable", path, f"not CSV ({e})") from None
    if not rows:
        return [], []
    names = rows[0]
    if len(set(names)) != len(names):
        raise AuditError("duplicate_column", path, "a column name occurs twice")
    body = [r for r in rows[1:] if r]
    for i, r in enumerate(body, start=2):
        if len(r) != len(names):
            raise AuditError(
                "unreadable", path, f"line {i} has {len(r)} fields, the header {len(names)}"
            )
    return names, [[None if v == "" else v for v in r] for r in body]


def _jsonl(path: str, text: str) -> tuple[list[str], list[list[object]]]:
    records: list[dict[str, object]] = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(
                line,
                parse_float=str,
                parse_int=str,
                parse_constant=_no_constant,
                object_pairs_hook=_unique_keys,
            )
        except KeyError as e:
            raise AuditError("duplicate_column", path, f"line {i} holds {e} twice") from None
        except (ValueError, RecursionError):
            raise AuditError("unreadable", path, f"line {i} is not one JSON value") from None
        if not isinstance(rec, dict):
            raise AuditError("unreadable", path, f"line {i} is not a JSON object")
        records.append(rec)
    names: list[str] = []
    seen: set[str] = set()
    for rec in records:
        for k in rec:
            if k not in seen:
                seen.add(k)
                names.append(k)
    return names, [[_cell(rec.get(n)) for n in names] for rec in records]
