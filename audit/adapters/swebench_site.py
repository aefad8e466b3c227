"""The SWE-bench leaderboard site's file (``data/leaderboards.json``) into a bundle.

``python -m audit adapt-swebench-site FILE [--board NAME ...] --out DIR``. The file is
``{"leaderboards": [{"name": <board>, "results": [<row>, ...]}, ...]}``; each row is an
object of published fields keyed by its ``folder``, and may ship
``per_instance_details``: ``{<instance_id>: {<field>: <value>, ...}}`` (the bash-only
board: ``resolved``, ``cost``, ``api_calls``). Boards, rows, fields and instance fields
are read from the file as they come, never from a list of expected names, so a board
with other fields, a row without ``per_instance_details`` or an instance without a
field is adapted as it is (absent = null) and said in ``adapter.json``.

Written into DIR (a bundle folder a config's ``bundle=`` takes as it is):

- ``leaderboard.parquet``: one row per (board, row), columns ``row_id``
  (``<board>/<folder>``: the declared key), ``board``, then every published field of
  the rows but ``per_instance_details``, in the order the file first shows them.
- ``instances.parquet``: one row per instance of each row's ``per_instance_details``,
  columns ``row_id`` (joins the leaderboard), ``board`` (the group column recipes
  read), ``instance_id``, then every instance field.
- ``adapter.json``: the file's digests, the boards taken (and the fields of each board
  object besides ``name`` and ``results``), each column's type and how it was encoded,
  how many rows lack each field, and each row's instance count or the reason it has
  none.
- ``prereg.draft.yaml``: the prereg drafted from the tables' types (draft-prereg), with
  the bundle's keys filled in (they are this format's, not a decision).

A field's column type follows the JSON values it holds across rows: booleans only,
Boolean; integers only, Int64; numbers, Float64 (while each integer is exactly a
double); text only, String; no value at all, the null type. Anything else (lists,
objects, or two kinds mixed, e.g. text and ``false``) is kept as canonical JSON text
(sorted keys, no spaces, UTF-8) in a String column, its reason listed. Nothing
published is left out; ``per_instance_details`` becomes the instance table.

Refused before anything is written (``error[<class>]: FILE: <problem>``, exit 2):
``missing_file``, ``too_large`` (over 1 GiB, or not a regular file), ``unreadable``
(not UTF-8 JSON), ``bad_leaderboard`` (not the shape
above, a key twice in one object, a row without a text ``folder``, a field named
as a column the adapter writes), ``duplicate_key`` (two boards of one name, two rows
of one folder on a board), ``unknown_board`` (a ``--board`` the file lacks) and
``empty`` (the boards taken have no row).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from audit.errors import AuditError
from audit.files import DuplicateKey, file_digests, json_loads, read_regular, write_atomic

FORMAT = "swebench-site-leaderboards"
LEADERBOARD = "leaderboard.parquet"
INSTANCES = "instances.parquet"
RECORD = "adapter.json"
DRAFT = "prereg.draft.yaml"
DETAILS = "per_instance_details"
KEY_FIELD = "folder"
LB_KEYS = ("row_id", "board")  # the columns the adapter adds to the leaderboard
IN_KEYS = ("row_id", "board", "instance_id")  # and to the instance table
BUNDLE_KEYS = {
    "leaderboard": LEADERBOARD,
    "instances": INSTANCES,
    "row_id": "row_id",
    "instance_key": ["row_id", "instance_id"],
    "group_by": "board",
}
LIMIT = 1 << 30  # 1 GiB: the whole site file, every board's instances, is tens of MiB
EXACT_INT = 2**53  # every integer of magnitude up to this is exactly a double
INT64 = 2**63


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, list):
        return "list"
    return "object"


def canonical_json(v: Any) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _read(path: str) -> Any:
    """The file's JSON: a regular file of at most LIMIT bytes, UTF-8, every key once."""
    raw = read_regular(path, LIMIT, "too_large")  # missing_file when absent
    try:
        return json_loads(raw.decode("utf-8"))
    except DuplicateKey as e:
        raise AuditError(
            "bad_leaderboard", path, f"an object holds the key {e.args[0]!r} twice"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise AuditError("unreadable", path, "not UTF-8 JSON") from None


def encode(values: list[Any]) -> tuple[pl.DataType, list[Any], str, str | None]:
    """(column type, the values as stored, encoding, why JSON text) for one field."""
    kinds = {_kind(v) for v in values} - {"null"}
    if not kinds:
        return pl.Null(), values, "null", None
    if kinds == {"boolean"}:
        return pl.Boolean(), values, "boolean", None
    if kinds == {"integer"} and all(v is None or -INT64 <= v < INT64 for v in values):
        return pl.Int64(), values, "int64", None
    if kinds <= {"integer", "number"} and all(
        not isinstance(v, int) or abs(v) <= EXACT_INT for v in values
    ):
        return pl.Float64(), [None if v is None else float(v) for v in values], "float64", None
    if kinds == {"text"}:
        return pl.String(), values, "string", None
    if kinds & {"list", "object"}:
        why = "holds " + " and ".join(sorted(kinds))
    elif kinds <= {"integer", "number"}:
        why = "an integer beyond what a 64-bit column holds exactly"
    else:
        why = "mixes " + " and ".join(sorted(kinds))
    stored = [None if v is None else canonical_json(v) for v in values]
    return pl.String(), stored, "json", why


def _table(
    keys: dict[str, list[Any]], fields: list[str], rows: list[dict[str, Any]]
) -> tuple[pl.DataFrame, dict[str, Any]]:
    columns: dict[str, pl.Series] = {
        name: pl.Series(name, vals, dtype=pl.String) for name, vals in keys.items()
    }
    record: dict[str, Any] = {}
    for f in fields:
        present = [f in r for r in rows]
        dtype, stored, how, why = encode([r.get(f) for r in rows])
        columns[f] = pl.Series(f, stored, dtype=dtype)
        record[f] = {
            "type": str(dtype),
            "encoding": how,
            "rows_without_field": present.count(False),
            "null_values": sum(1 for r in rows if f in r and r[f] is None),
        } | ({"json_because": why} if why else {})
    return pl.DataFrame(list(columns.values())), record


def _fields(rows: list[dict[str, Any]], skip: set[str]) -> list[str]:
    seen: dict[str, None] = {}
    for r in rows:
        for k in r:
            if k not in skip:
                seen.setdefault(k, None)
    return list(seen)


def _boards(doc: Any, path: str) -> list[dict[str, Any]]:
    def bad(detail: str) -> AuditError:
        return AuditError("bad_leaderboard", path, detail)

    if not isinstance(doc, dict) or not isinstance(doc.get("leaderboards"), list):
        raise bad('not {"leaderboards": [...]}')
    seen: set[str] = set()
    for i, b in enumerate(doc["leaderboards"]):
        if not isinstance(b, dict):
            raise bad(f"leaderboards[{i}] is not an object")
        name = b.get("name")
        if not isinstance(name, str) or not name:
            raise bad(f"leaderboards[{i}] has no name (text)")
        if not isinstance(b.get("results"), list):
            raise bad(f"board {name!r}: results is not a list")
        if name in seen:
            raise AuditError("duplicate_key", path, f"two boards named {name!r}")
        seen.add(name)
    return doc["leaderboards"]


def _select(boards: list[dict[str, Any]], wanted: list[str] | None, path: str) -> list[dict]:
    if not wanted:
        return boards
    names = [b["name"] for b in boards]
    missing = [w for w in wanted if w not in names]
    if missing:
        raise AuditError(
            "unknown_board",
            path,
            f"no board named {', '.join(map(repr, missing))}; the file has "
            f"{', '.join(map(repr, names)) or 'none'}",
        )
    return [b for b in boards if b["name"] in set(wanted)]


def adapt(path: str, wanted: list[str] | None = None) -> dict[str, Any]:
    """The two tables and the record, or an AuditError; nothing written."""
    doc = _read(path)
    boards = _select(_boards(doc, path), wanted, path)

    def bad(detail: str) -> AuditError:
        return AuditError("bad_leaderboard", path, detail)

    lb_rows: list[dict[str, Any]] = []
    lb_keys: dict[str, list[Any]] = {k: [] for k in LB_KEYS}
    in_rows: list[dict[str, Any]] = []
    in_keys: dict[str, list[Any]] = {k: [] for k in IN_KEYS}
    per_row: list[dict[str, Any]] = []
    board_record: list[dict[str, Any]] = []
    for b in boards:
        name = b["name"]
        folders: set[str] = set()
        for i, row in enumerate(b["results"]):
            if not isinstance(row, dict):
                raise bad(f"board {name!r}: results[{i}] is not an object")
            folder = row.get(KEY_FIELD)
            if not isinstance(folder, str) or not folder:
                raise bad(f"board {name!r}: results[{i}] has no {KEY_FIELD} (text), its key")
            if folder in folders:
                raise AuditError("duplicate_key", path, f"board {name!r}: two rows of {folder!r}")
            folders.add(folder)
            for k in LB_KEYS:
                if k in row:
                    raise bad(
                        f"board {name!r}: row {folder!r} has a field {k!r}, a column the adapter writes"
                    )
            row_id = f"{name}/{folder}"
            lb_keys["row_id"].append(row_id)
            lb_keys["board"].append(name)
            lb_rows.append({k: v for k, v in row.items() if k != DETAILS})
            details = row.get(DETAILS)
            entry: dict[str, Any] = {"row_id": row_id}
            if details is None:
                entry |= {
                    "instances": None,
                    "reason": f"{DETAILS} {'is null' if DETAILS in row else 'absent'}",
                }
            elif not isinstance(details, dict):
                raise bad(f"row {row_id!r}: {DETAILS} is not an object")
            else:
                for iid, fields in details.items():
                    if not isinstance(fields, dict):
                        raise bad(f"row {row_id!r}: instance {iid!r} is not an object")
                    for k in IN_KEYS:
                        if k in fields:
                            raise bad(
                                f"row {row_id!r}: instance {iid!r} has a field {k!r},"
                                " a column the adapter writes"
                            )
                    in_keys["row_id"].append(row_id)
                    in_keys["board"].append(name)
                    in_keys["instance_id"].append(iid)
                    in_rows.append(fields)
                entry["instances"] = len(details)
            per_row.append(entry)
        board_record.append(
            {
                "name": name,
                "rows": len(b["results"]),
                "fields": {
                    k: canonical_json(v) for k, v in b.items() if k not in ("name", "results")
                },
            }
        )
    if not lb_rows:
        raise AuditError("empty", path, "the boards taken have no row")
    leaderboard, lb_cols = _table(lb_keys, _fields(lb_rows, set()), lb_rows)
    instances, in_cols = _table(in_keys, _fields(in_rows, set()), in_rows)
    record = {
        "format": FORMAT,
        "source": {"file": Path(path).name, **file_digests(path)},
        "boards": board_record,
        "bundle": BUNDLE_KEYS,
        "keys": {
            "row_id": f"<board>/<{KEY_FIELD}>: one leaderboard row; instance rows join by it",
            "board": "the board's name; the instance table's group column",
            "instance_id": f"a key of the row's {DETAILS}",
        },
        "moved": {DETAILS: f"one row per instance in {INSTANCES}"},
        "left_out": {},
        "leaderboard_columns": lb_cols,
        "instance_columns": in_cols,
        "rows": {"leaderboard": leaderboard.height, "instances": instances.height},
        "per_row": per_row,
    }
    return {"leaderboard": leaderboard, "instances": instances, "record": record}


def adapt_to(path: str, out: str, wanted: list[str] | None = None) -> dict[str, Any]:
    """Adapt, then write every file through a temporary file renamed into place."""
    from audit.cells import draft_prereg

    got = adapt(path, wanted)
    record = got["record"]
    tables = {LEADERBOARD: got["leaderboard"], INSTANCES: got["instances"]}
    draft = draft_prereg.draft_of(
        name=draft_prereg.slug(Path(out).resolve().name),
        tables={n: {c: str(t) for c, t in df.schema.items()} for n, df in sorted(tables.items())},
        bundle=BUNDLE_KEYS,
        structural=["row_id"],
    )
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        tmp = out_dir / f".{name}.tmp"
        df.write_parquet(tmp, compression="zstd", statistics=False)
        tmp.replace(out_dir / name)
    write_atomic(out_dir / RECORD, json.dumps(record, indent=2, sort_keys=True) + "\n")
    draft_prereg.write_doc(out_dir / DRAFT, draft, f"{Path(path).name} (adapt-swebench-site)")
    return record


def summary_lines(record: dict[str, Any]) -> list[str]:
    lines = [
        f"adapt-swebench-site: {record['rows']['leaderboard']} leaderboard row(s), "
        f"{record['rows']['instances']} instance row(s) written"
    ]
    for b in record["boards"]:
        lines.append(f"  board {b['name']}: {b['rows']} row(s)")
    without = [r for r in record["per_row"] if r["instances"] is None]
    if without:
        lines.append(f"  {len(without)} row(s) without instances (no {DETAILS}):")
        lines.extend(f"    {r['row_id']}: {r['reason']}" for r in without)
    json_cols = [
        f"{table}/{c}"
        for table in ("leaderboard_columns", "instance_columns")
        for c, spec in record[table].items()
        if spec["encoding"] == "json"
    ]
    if json_cols:
        lines.append(f"  kept as JSON text: {', '.join(json_cols)}")
    return lines
