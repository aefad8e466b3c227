"""A table's content digest: the same for the same values, whichever writer made the file.

Format (v1), hashed with blake3: the line ``secondseat-table-v1``, ``rows=<n>``,
then per column in file order ``column=<name>|type=<t>|values=<h>`` where ``t``
is bool, int, float or string (else ``other:<dtype>``) and ``h`` the blake3 of
the column's values, each written as ``N;`` (null), ``T;``/``F;``, ``I<digits>;``,
``D<float.hex()>;`` or ``S<utf-8 byte length>:<text>;``. Parquet encodings,
compression, row groups, string widths and writer metadata do not enter it.

A column's values are those of the contract's kinds (docs/contract.md, Types): a
column of kind integer that polars reads as another type, through the Arrow schema a
writer stored beside the file (an Arrow duration, in any unit), is type ``int``, its
values the INT64 the file stores (read as audit/bundles/parquet_stored.py reads them),
not polars' durations: one in seconds polars reads as milliseconds, times 1000, wrapping
past 64 bits, so that two tables storing 0 and 2**62 had one digest.

The value encodings are built by polars, a slice of rows at a time, and hashed
as one string per slice (the bytes hashed are those of the definition above;
``D`` is Python's ``float.hex()`` rebuilt from each value's IEEE bits). Types with no vectorised encoding (dates, decimals,
nested) go value by value through Python, as the definition reads.

A CSV table (a leaderboard the prereg declares as CSV, with its column types;
docs/trials-contract.md section 4.3) has the same digest lines, its values read
from the text under the declared types: ``string`` (type string), ``integer``
(int), ``boolean`` (bool, from ``true``/``false``) and ``decimal`` (type
decimal, each value its printed text, ``S<length>:<text>;``, since the digits it
prints are part of the claim); an empty field is null. Quoting, line endings
and the writer do not enter it.
"""

from __future__ import annotations

import array
import csv
import io
import math
import re
from functools import cache
from pathlib import Path

import blake3
import polars as pl

from audit.bundles import parquet_bounds, parquet_stored
from audit.errors import AuditError
from audit.files import open_regular, read_regular


def _kind(dtype: pl.DataType) -> str:
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer():
        return "int"
    if dtype.is_float():
        return "float"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "string"
    return f"other:{dtype}"


def _encode(kind: str, value: object) -> bytes:
    if value is None:
        return b"N;"
    if kind == "bool":
        return b"T;" if value else b"F;"
    if kind == "int":
        return b"I%d;" % value
    if kind == "float":
        return b"D" + float(value).hex().encode() + b";"
    text = str(value).encode("utf-8")
    return b"S%d:" % len(text) + text + b";"


SLICE = 1 << 20  # rows encoded and hashed at a time


@cache
def _hex_digits() -> tuple[pl.Series, pl.Series]:
    """The hex digit of each 4-bit value and the four digits of each 16-bit value; built
    at the first float column, not at import (65,536 strings: every process that reads
    a table through this module would pay for them)."""
    return (
        pl.Series("hex1", [f"{i:x}" for i in range(16)]),
        pl.Series("hex4", [f"{i:04x}" for i in range(1 << 16)]),
    )


def _u64(n: int) -> pl.Expr:
    """An unsigned 64-bit literal (an Int64 one would turn the bit arithmetic into doubles)."""
    return pl.lit(n, dtype=pl.UInt64)


def float_bits(values: pl.Series) -> pl.Series:
    """Each value's IEEE 754 binary64 bits as an unsigned integer (nulls as 0.0's bits).

    Polars cannot reinterpret a float column, so the doubles go through an
    ``array('d')`` and are read back as ``array('Q')`` of the same bytes."""
    doubles = array.array("d", values.cast(pl.Float64).fill_null(0.0).to_list())
    return pl.Series(memoryview(doubles).cast("B").cast("Q"), dtype=pl.UInt64)


def _float_hex(x: pl.Expr, bits: pl.Expr) -> pl.Expr:
    """``float(v).hex()`` of every value ("nan" for NaN; nulls stay null), from ``bits``.

    Sign bit, 11 exponent bits, 52 fraction bits written as 13 hex digits; an
    exponent of 0 is a subnormal, written '0.' and 'p-1022'."""
    biased = ((bits // _u64(1 << 52)) % _u64(1 << 11)).cast(pl.Int32)
    frac = bits % _u64(1 << 52)
    hex1, hex4 = (pl.lit(s) for s in _hex_digits())
    mantissa = pl.concat_str(
        hex1.gather(frac // _u64(1 << 48)),
        hex4.gather((frac // _u64(1 << 32)) % _u64(1 << 16)),
        hex4.gather((frac // _u64(1 << 16)) % _u64(1 << 16)),
        hex4.gather(frac % _u64(1 << 16)),
    )
    normal = biased > 0
    e = biased - 1023
    exponent = (
        pl.when(~normal)
        .then(pl.lit("-1022"))
        .when(e >= 0)
        .then(pl.concat_str(pl.lit("+"), e.cast(pl.String)))
        .otherwise(e.cast(pl.String))
    )
    negative = bits >= _u64(1 << 63)
    return (
        pl.when(x.is_null())
        .then(pl.lit(None, pl.String))
        .when(x.is_nan())
        .then(pl.lit("nan"))
        .when(x == math.inf)
        .then(pl.lit("inf"))
        .when(x == -math.inf)
        .then(pl.lit("-inf"))
        .when(x == 0)
        .then(pl.when(negative).then(pl.lit("-0x0.0p+0")).otherwise(pl.lit("0x0.0p+0")))
        .otherwise(
            pl.concat_str(
                pl.when(negative).then(pl.lit("-0x")).otherwise(pl.lit("0x")),
                pl.when(normal).then(pl.lit("1.")).otherwise(pl.lit("0.")),
                mantissa,
                pl.lit("p"),
                exponent,
            )
        )
    )


def _tokens(kind: str, x: pl.Expr, bits: pl.Expr | None = None) -> pl.Expr | None:
    """Each value's encoding as a string (None: no vectorised form for this kind)."""
    if kind == "bool":
        text = pl.when(x).then(pl.lit("T;")).otherwise(pl.lit("F;"))
        return pl.when(x.is_null()).then(pl.lit("N;")).otherwise(text)
    if kind == "int":
        text = pl.concat_str(pl.lit("I"), x.cast(pl.String), pl.lit(";"))
    elif kind == "float":
        assert bits is not None  # the column's float_bits, beside it in the frame
        text = pl.concat_str(pl.lit("D"), _float_hex(x, bits), pl.lit(";"))
    elif kind == "string":
        x = x.cast(pl.String)
        text = pl.concat_str(
            pl.lit("S"), x.str.len_bytes().cast(pl.String), pl.lit(":"), x, pl.lit(";")
        )
    else:
        return None
    return text.fill_null(pl.lit("N;"))


# a column that a slice holds in at most 1/RUNS as many runs of equal values as rows
# is hashed run by run
RUNS = 16


def _run_tokens(kind: str, values: pl.Series) -> list[bytes]:
    """The encoding of each run's value (the same tokens the whole column would give;
    not for floats)."""
    expr = _tokens(kind, pl.col("x"))
    assert expr is not None
    return [t.encode("utf-8") for t in values.to_frame("x").select(expr).to_series().to_list()]


def _digests(df: pl.DataFrame) -> list[tuple[str, str]]:
    """(kind, hex blake3 of the encoded values) per column, a slice of rows at a time.

    The vectorised columns of a slice are encoded in one polars query (in parallel);
    a column in long runs of one value (a table sorted by entry, say) has each run's
    value encoded once and hashed as many times as the run is long: the same bytes.
    Floats always go value by value: 0.0 and -0.0 are one run but two encodings."""
    kinds = [_kind(dtype) for dtype in df.dtypes]
    exprs = [
        _tokens(k, pl.col(n), pl.col(f"\x00bits{j}"))
        for j, (k, n) in enumerate(zip(kinds, df.columns))
    ]
    hashers = [blake3.blake3() for _ in df.columns]
    for start in range(0, df.height, SLICE):
        part = df.slice(start, SLICE)
        runs: dict[int, pl.DataFrame] = {}
        for j, name in enumerate(df.columns):
            # not floats: runs are of equal values, and -0.0 == 0.0 encode apart
            if exprs[j] is not None and kinds[j] != "float":
                r = part.get_column(name).rle()
                if len(r) * RUNS <= part.height:
                    runs[j] = r.struct.unnest()
        fast = [j for j, e in enumerate(exprs) if e is not None and j not in runs]
        floats = [j for j in fast if kinds[j] == "float"]  # their bits ride beside them
        if floats:
            part = part.with_columns(
                float_bits(part.get_column(df.columns[j])).alias(f"\x00bits{j}") for j in floats
            )
        tokens = (
            part.lazy().select(exprs[j].alias(f"t{j}") for j in fast).collect() if fast else None
        )
        for j, (kind, name) in enumerate(zip(kinds, df.columns)):
            if exprs[j] is None:
                for value in part.get_column(name).to_list():
                    hashers[j].update(_encode(kind, value))
            elif j in runs:
                lengths = runs[j].get_column("len").to_list()
                for token, n in zip(_run_tokens(kind, runs[j].get_column("value")), lengths):
                    hashers[j].update(token * n)
            else:
                assert tokens is not None
                text = tokens.get_column(f"t{j}").str.join("").item()
                hashers[j].update(text.encode("utf-8"))
    return [(k, h.hexdigest()) for k, h in zip(kinds, hashers)]


def column_digest(series: pl.Series) -> tuple[str, str]:
    return _digests(series.to_frame())[0]


def read_table(path: str | Path) -> pl.DataFrame:
    """Read a parquet file, a column of kind integer as the integers the file stores
    (audit/bundles/parquet_stored.py: an Arrow duration); a missing, special, broken or
    too large file is an AuditError (too_large: past the bound of
    audit/bundles/parquet_bounds.py, checked first)."""
    p = Path(path)
    with open_regular(p, str(path)) as f:
        head = f.read(4)
    if head != b"PAR1":  # polars, like Arrow, looks for the magic only at the end
        raise AuditError("unreadable", str(path), "not a parquet file (no PAR1 at the start)")
    parquet_bounds.check(p, str(path))  # before polars allocates what the pages declare
    try:
        return parquet_stored.read(p, shown=str(path))
    except AuditError:  # the footer's own refusal (audit/bundles/parquet_kinds.py), as it is
        raise
    except pl.exceptions.DuplicateError as e:  # the contestants' class for it
        first = (str(e).strip().splitlines() or ["a column name occurs twice"])[0]
        raise AuditError("duplicate_column", str(path), first) from None
    except Exception as e:  # noqa: BLE001 - polars raises several types for a broken file
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AuditError(
            "unreadable", str(path), f"not a readable parquet file ({first})"
        ) from None


MAX_CSV = 1 << 30  # a CSV table is read whole: at most 1 GiB (docs/refusals.md)
CSV_KINDS = {"string": "string", "integer": "int", "decimal": "decimal", "boolean": "bool"}
_CSV_FORMS = {
    "integer": re.compile(r"-?[0-9]+"),
    "decimal": re.compile(r"-?[0-9]+(\.[0-9]+)?"),
    "boolean": re.compile(r"true|false"),
}


INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1  # the contract's integer: a parquet INT64


def csv_value(kind: str, text: str) -> object:
    """A CSV field under its declared type (trials contract 4.3): empty is null; an integer
    an int, a boolean a bool; a string or decimal its text."""
    if text == "":
        return None
    if kind == "integer":
        return int(text)
    if kind == "boolean":
        return text == "true"
    return text


def csv_field_ok(kind: str, text: str) -> bool:
    """A field matches its declared type (an empty field, null, matches every type); an
    integer also lies in [-2**63, 2**63 - 1] (its digits counted before int() reads them:
    Python refuses to read a text of over 4,300 digits)."""
    form = _CSV_FORMS.get(kind)
    if form is None or text == "":
        return True
    if form.fullmatch(text) is None:
        return False
    if kind == "integer":
        return len(text.lstrip("-").lstrip("0")) <= 19 and INT64_MIN <= int(text) <= INT64_MAX
    return True


def csv_rows(path: str | Path) -> tuple[list[str], list[list[str]]]:
    """A CSV table's header and body, every field as text; unreadable as the contestants
    refuse it (no file content, a byte-order mark, not UTF-8, bad quoting, no header, a
    row of another width). Empty lines are skipped; at most MAX_CSV bytes (too_large)."""
    raw = read_regular(path, MAX_CSV, "too_large")
    if raw.startswith(b"\xef\xbb\xbf"):
        raise AuditError("unreadable", str(path), "a byte-order mark: the CSV must be plain UTF-8")
    try:
        rows = [
            r for r in csv.reader(io.StringIO(raw.decode("utf-8"), newline=""), strict=True) if r
        ]
    except (UnicodeDecodeError, csv.Error) as e:
        raise AuditError("unreadable", str(path), f"not a readable CSV file ({e})") from None
    if not rows:
        raise AuditError("unreadable", str(path), "no header line")
    header, body = rows[0], rows[1:]
    for i, r in enumerate(body, start=2):
        if len(r) != len(header):
            raise AuditError(
                "unreadable", str(path), f"line {i} has {len(r)} fields, not {len(header)}"
            )
    return header, body


def read_csv_table(path: str | Path, types: dict[str, str]) -> tuple[list[str], list[list[object]]]:
    """A CSV table's header and its columns' values under the declared types.

    Refused as the contestants refuse it: unreadable (csv_rows), duplicate_column,
    missing_column or undeclared_column against ``types``, bad_type for a field that
    is not of its declared type."""
    header, body = csv_rows(path)
    if len(set(header)) != len(header):
        raise AuditError("duplicate_column", str(path), "a column name occurs twice")
    for name in types:
        if name not in header:
            raise AuditError("missing_column", str(path), f"no column {name!r}")
    columns = []
    for j, name in enumerate(header):
        if name not in types:
            raise AuditError(
                "undeclared_column", str(path), f"column {name!r} has no declared type"
            )
        kind = types[name]
        for i, r in enumerate(body):
            if not csv_field_ok(kind, r[j]):
                raise AuditError(
                    "bad_type", str(path), f"column {name!r} is {kind}; row {i} holds {r[j]!r}"
                )
        columns.append([csv_value(kind, r[j]) for r in body])
    return header, columns


def _csv_lines(path: str | Path, types: dict[str, str]) -> tuple[list[str], int, int]:
    header, columns = read_csv_table(path, types)
    rows = len(columns[0]) if columns else 0
    lines = ["secondseat-table-v1", f"rows={rows}"]
    for name, values in zip(header, columns):
        kind = CSV_KINDS[types[name]]
        h = blake3.blake3()
        for v in values:
            h.update(_encode(kind, v))
        lines.append(f"column={name}|type={kind}|values={h.hexdigest()}")
    return lines, rows, len(header)


def table_digest(path: str | Path, types: dict[str, str] | None = None) -> dict[str, object]:
    """Content digest of one table, with its shape: parquet, or CSV read under ``types``."""
    if types is not None:
        lines, height, width = _csv_lines(path, types)
    else:
        df = read_table(path)
        height, width = df.height, df.width
        lines = ["secondseat-table-v1", f"rows={df.height}"]
        for name, (kind, h) in zip(df.columns, _digests(df)):
            lines.append(f"column={name}|type={kind}|values={h}")
    text = "\n".join(lines) + "\n"
    return {
        "content_digest": blake3.blake3(text.encode("utf-8")).hexdigest(),
        "rows": height,
        "columns": width,
    }
