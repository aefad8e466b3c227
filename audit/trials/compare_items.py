"""``python -m audit compare-items A B``: the first boundary at which two runs' items differ.

A and B are per-item tables of the same task (parquet, CSV, JSON Lines or a JSON list of
records), one row per item. Items are joined by their registered identity (``--id``);
a duplicated id, an id of A that B lacks (missing) or an id of B that A lacks
(unexpected) is refused, naming the ids.

For each item the boundaries are walked in their declared order (``--boundaries``,
``NAME=COLUMN,...``; by default the seven below, each carried by the column of its
name). At each boundary the two values are compared by the blake3 digest of their bytes
(``value_bytes``). The first boundary whose digests differ is the item's first
divergent boundary; a boundary one side did not record (no such column, or a null
value) can only be assumed equal, and is counted as assumed, with the side that lacks
it. Correctness comes from the boundary named ``score`` (true/1 right, false/0 wrong),
agreement of predictions from the one named ``answer``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import blake3
import polars as pl

from audit.errors import AuditError
from audit.files import write_atomic

BOUNDARIES = ("input", "prompt", "tokens", "output", "answer", "score", "included")
NONE = "none"  # no recorded boundary differs


def read_items(path: str) -> pl.DataFrame:
    """A per-item table, by its suffix; CSV is read as text (its bytes, not a guess)."""
    p = Path(path)
    if not p.is_file():
        raise AuditError("missing_file", path, "no such file")
    suffix = p.suffix.lower()
    try:
        if suffix == ".parquet":
            table = pl.read_parquet(p)
        elif suffix == ".csv":
            table = pl.read_csv(p, infer_schema=False)
        elif suffix in (".jsonl", ".ndjson"):
            table = pl.read_ndjson(p)
        elif suffix == ".json":
            table = pl.DataFrame(json.loads(p.read_text(encoding="utf-8")))
        else:
            raise AuditError("bad_format", path, f"unknown per-item table suffix {suffix!r}")
    except AuditError:
        raise
    except Exception as e:  # noqa: BLE001 - any reader failure is one unusable-input line
        raise AuditError("unreadable", path, f"not a readable table ({type(e).__name__})") from None
    if table.height == 0:
        raise AuditError("empty", path, "no items")
    return table


def parse_boundaries(spec: str | None) -> list[tuple[str, str]]:
    """``NAME=COLUMN,...`` (a bare NAME is carried by the column NAME), in order."""
    if spec is None:
        return [(b, b) for b in BOUNDARIES]
    out: list[tuple[str, str]] = []
    for part in spec.split(","):
        name, _, col = part.strip().partition("=")
        if not name or name in {n for n, _ in out}:
            raise AuditError("bad_args", "--boundaries", f"empty or repeated boundary in {spec!r}")
        out.append((name, col or name))
    return out


def value_bytes(value: Any) -> bytes | None:
    """The bytes a value is compared by; None when it was not recorded."""
    if value is None:
        return None
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, int):
        return str(value).encode()
    if isinstance(value, float):
        return value.hex().encode()
    return json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")


def _digest(value: Any) -> str | None:
    raw = value_bytes(value)
    return None if raw is None else blake3.blake3(raw).hexdigest()


def _by_id(table: pl.DataFrame, id_col: str, path: str) -> dict[str, dict[str, Any]]:
    if id_col not in table.columns:
        raise AuditError("missing_column", path, f"no item id column {id_col!r}")
    rows: dict[str, dict[str, Any]] = {}
    dupes: list[str] = []
    for row in table.to_dicts():
        key = row[id_col]
        if key is None:
            raise AuditError("missing_id", path, f"a row has no {id_col}")
        key = str(key)
        if key in rows and key not in dupes:
            dupes.append(key)
        rows[key] = row
    if dupes:
        raise AuditError("duplicate_id", path, f"item id(s) repeated: {', '.join(sorted(dupes))}")
    return rows


def _correct(value: Any, path: str, item: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in (
        "0",
        "1",
        "0.0",
        "1.0",
        "true",
        "false",
    ):
        return value.strip().lower() in ("1", "1.0", "true")
    raise AuditError("bad_type", path, f"item {item}: score {value!r} is not right/wrong (0/1)")


def compare(
    path_a: str, path_b: str, id_col: str = "item_id", boundaries: str | None = None
) -> dict[str, Any]:
    """The per-item first boundaries and the summary (no file written)."""
    order = parse_boundaries(boundaries)
    a = _by_id(read_items(path_a), id_col, path_a)
    b = _by_id(read_items(path_b), id_col, path_b)
    missing = sorted(set(a) - set(b))
    if missing:
        raise AuditError("missing_item", path_b, f"lacks item(s) of {path_a}: {', '.join(missing)}")
    unexpected = sorted(set(b) - set(a))
    if unexpected:
        raise AuditError(
            "unexpected_item", path_b, f"has item(s) {path_a} lacks: {', '.join(unexpected)}"
        )
    items: list[dict[str, Any]] = []
    first_counts = {name: 0 for name, _ in order} | {NONE: 0}
    assumed: dict[str, dict[str, int]] = {name: {} for name, _ in order}
    for key in sorted(a):
        ra, rb = a[key], b[key]
        first = NONE
        item_assumed: list[str] = []
        for name, col in order:
            da, db = _digest(ra.get(col)), _digest(rb.get(col))
            if da is None or db is None:
                side = "both" if da is None and db is None else ("A" if da is None else "B")
                assumed[name][side] = assumed[name].get(side, 0) + 1
                item_assumed.append(f"{name}:{side}")
                continue
            if da != db:
                first = name
                break
        first_counts[first] += 1
        items.append({"item": key, "first_boundary": first, "assumed": ";".join(item_assumed)})
    return {
        "a": path_a,
        "b": path_b,
        "id": id_col,
        "boundaries": [{"name": n, "column": c} for n, c in order],
        "items": len(items),
        "first_boundary": first_counts,
        "assumed": {n: dict(sorted(s.items())) for n, s in assumed.items() if s},
        "answers_agree": _answers_agree(a, b, dict(order).get("answer")),
        "paired": _paired(a, b, dict(order).get("score"), path_a, path_b),
        "per_item": items,
    }


def _answers_agree(a: dict, b: dict, col: str | None) -> int | None:
    if col is None:
        return None
    digests = [(_digest(a[k].get(col)), _digest(b[k].get(col))) for k in a]
    if any(x is None or y is None for x, y in digests):
        return None
    return sum(x == y for x, y in digests)


def _paired(a: dict, b: dict, col: str | None, path_a: str, path_b: str) -> dict[str, Any] | None:
    """Both right, only A right, only B right, both wrong; None when a score is unrecorded."""
    if col is None:
        return None
    table = {"both_right": 0, "only_a": 0, "only_b": 0, "both_wrong": 0}
    right = {"a": 0, "b": 0}
    for k in sorted(a):
        ca, cb = _correct(a[k].get(col), path_a, k), _correct(b[k].get(col), path_b, k)
        if ca is None or cb is None:
            return None
        right["a"] += ca
        right["b"] += cb
        cell = "both_right" if ca and cb else "only_a" if ca else "only_b" if cb else "both_wrong"
        table[cell] += 1
    return {**table, "right_a": right["a"], "right_b": right["b"]}


def summary_lines(res: dict[str, Any]) -> list[str]:
    n = res["items"]
    lines = [f"compare-items: {n} item(s), joined by {res['id']}"]
    for name, count in res["first_boundary"].items():
        if count:
            label = "no recorded boundary differs" if name == NONE else f"first differ at {name}"
            lines.append(f"  {label}: {count}")
    for name, sides in res["assumed"].items():
        said = ", ".join(f"{side} did not record it: {k}" for side, k in sides.items())
        lines.append(f"  assumed {name} ({said})")
    if res["answers_agree"] is not None:
        lines.append(f"  answers agree on {res['answers_agree']}/{n}")
    p = res["paired"]
    if p is None:
        lines.append("  paired correctness: not available (a score is not recorded)")
    else:
        lines.append(
            f"  right: A {p['right_a']}/{n}, B {p['right_b']}/{n}; both right {p['both_right']}, "
            f"only A {p['only_a']}, only B {p['only_b']}, both wrong {p['both_wrong']}"
        )
    return lines


def write(res: dict[str, Any], out: str) -> None:
    """``items.csv`` (one row per item) and ``compare-items.json`` (the summary)."""
    per_item = pl.DataFrame(
        res["per_item"],
        schema={"item": pl.String, "first_boundary": pl.String, "assumed": pl.String},
    )
    summary = {k: v for k, v in res.items() if k != "per_item"}
    write_atomic(Path(out) / "items.csv", per_item.write_csv())
    write_atomic(
        Path(out) / "compare-items.json", json.dumps(summary, indent=2, sort_keys=True) + "\n"
    )
