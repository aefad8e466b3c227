"""Write parquet files with pyarrow's writer options (for tests/test_fuzz.py and
tests/test_parquet_variants.py); runs in the pyarrow contestant's environment:

    <impl-pyarrow python> tests/fuzz_writer.py

Reads one JSON object per line on stdin and answers one JSON line on stdout
({"ok": true} or {"error": text}). A job is either
  {"copy": SRC, "out": DST, "options": {...}}: SRC read whole, rewritten to DST;
  {"columns": [...], "out": DST, "options": {...}}: a table built from columns,
each {"name", "type", "values"}, a string value given as {"hex": ...} being
those bytes, unchecked (so a file can hold a string that is not UTF-8).
Types: string, binary, bool, int64, float64, float32, null, duration,
timestamp (naive, us), timestamp_tz (UTC, us), int96 (a timestamp written
as INT96), date, decimal, list (of int64), struct ({"a": int64}).
options: pyarrow.parquet.write_table keyword arguments; "int96": true asks for
INT96 timestamps; "delta": true writes every integer column DELTA_BINARY_PACKED
(dictionary off for those columns).
"""

from __future__ import annotations

import datetime
import decimal
import json
import sys
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

_EPOCH = datetime.datetime(2020, 1, 1)


def _strings(values: list[Any], typ: pa.DataType) -> pa.Array:
    raw = [None if v is None else bytes.fromhex(v["hex"]) if isinstance(v, dict) else v.encode()
           for v in values]  # fmt: skip
    binary = pa.array(raw, pa.binary())
    if typ == pa.binary():
        return binary
    return pa.Array.from_buffers(pa.string(), len(binary), binary.buffers(), binary.null_count)


def _column(spec: dict[str, Any]) -> pa.Array:
    typ, values = spec["type"], spec["values"]
    if typ in ("string", "binary"):
        return _strings(values, pa.string() if typ == "string" else pa.binary())
    simple = {"bool": pa.bool_(), "int64": pa.int64(), "float64": pa.float64(),
              "float32": pa.float32(), "null": pa.null(), "duration": pa.duration("ms")}  # fmt: skip
    if typ in simple:
        return pa.array(values, simple[typ])
    if typ in ("timestamp", "timestamp_tz", "int96"):
        tz = "UTC" if typ == "timestamp_tz" else None
        return pa.array(values, pa.timestamp("us", tz=tz))
    if typ == "date":
        return pa.array([None if v is None else _EPOCH.date() + datetime.timedelta(days=v)
                         for v in values], pa.date32())  # fmt: skip
    if typ == "decimal":
        return pa.array([None if v is None else decimal.Decimal(v) / 100 for v in values],
                        pa.decimal128(12, 2))  # fmt: skip
    if typ == "list":
        return pa.array([None if v is None else [v, v] for v in values], pa.list_(pa.int64()))
    if typ == "struct":
        return pa.array([None if v is None else {"a": v} for v in values],
                        pa.struct([("a", pa.int64())]))  # fmt: skip
    raise ValueError(f"unknown type {typ}")


def write(job: dict[str, Any]) -> None:
    if "copy" in job:
        table = pq.read_table(job["copy"])
    else:
        cols = job["columns"]
        table = pa.table({c["name"]: _column(c) for c in cols})
    options = dict(job.get("options", {}))
    if options.pop("int96", False):
        options["use_deprecated_int96_timestamps"] = True
    if options.pop("delta", False):
        ints = [f.name for f in table.schema if pa.types.is_integer(f.type)]
        if ints:
            options["use_dictionary"] = (
                [f.name for f in table.schema if f.name not in ints]
                if options.get("use_dictionary", True)
                else False
            )
            options["column_encoding"] = {n: "DELTA_BINARY_PACKED" for n in ints}
    pq.write_table(table, job["out"], **options)


def main() -> int:
    for line in sys.stdin:
        job = json.loads(line)
        try:
            write(job)
            answer: dict[str, Any] = {"ok": True}
        except Exception as exc:  # noqa: BLE001 - reported to the test
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
