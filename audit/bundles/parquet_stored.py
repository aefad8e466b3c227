"""A parquet column of the contract's kind integer as the integers the file stores.

docs/contract.md, Types: a column's kind comes from the file's own schema; a column
written from an Arrow duration is a plain INT64 in the file, so an integer, read as the
INT64 stored, as both contestants read it. polars reads a file through the Arrow schema
a writer stored beside it (the footer's key_value_metadata ``ARROW:schema``) when there
is one, and so reads such a column as a duration: in milliseconds, micro- or nanoseconds
as stored, but one in seconds as milliseconds, every stored value times 1000, wrapping
past the 64-bit range (a stored 2**62 reads as 0, as does 0). What polars returns then
tells neither the unit nor, past the wrap, the value; nothing in its public API reads a
file without that schema.

So such a column is read again from the file's bytes with every ``ARROW:schema`` key of
the footer renamed (``HIDDEN``, as long, so the footer keeps its layout;
audit/bundles/parquet_bounds.py finds each key where the Thrift encoding puts it): polars
then takes the column's type from the parquet schema alone, where a column of kind
integer is of an integer type, and reads the values as stored. Neither the unit nor a
dictionary encoding of the duration enters into it; a duration inside a list or a struct
is of kind other, never read as integers. A file whose ``ARROW:schema`` does not parse
polars does not read at all: what it raises is the caller's (preflight leaves the file
to the lock, which refuses it as ``unreadable``).
"""

from __future__ import annotations

import io
import mmap
import os
from pathlib import Path
from typing import Any

from audit.bundles import parquet_bounds
from audit.files import open_regular

KEY = b"ARROW:schema"
HIDDEN = b"ARROW_schema"  # a key no reader gives a meaning to, of the same length


def hidden_schema(path: str | Path, shown: str | None = None) -> bytes:
    """The file's bytes with each ``ARROW:schema`` key of its footer renamed ``HIDDEN``
    (a ValueError: an empty file or a footer that does not parse)."""
    with open_regular(path, shown or str(path)) as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise ValueError("an empty file, not parquet")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            offsets = parquet_bounds.key_offsets(data, size, KEY)
            out = bytearray(data)
    for start in offsets:
        out[start : start + len(KEY)] = HIDDEN
    return bytes(out)


def read(path: str | Path, columns: list[str] | None = None, shown: str | None = None) -> Any:
    """The file's columns (or ``columns``) as polars reads them, but each of kind integer
    in the file's own schema (audit/bundles/parquet_kinds.py) that polars reads as another
    type replaced by the integers the file stores, read with Arrow's stored schema hidden.
    What polars raises on the file (or a ValueError: a footer that does not parse, or
    such a column polars still reads as another type) propagates."""
    import polars as pl

    from audit.bundles import parquet_kinds

    frame = pl.read_parquet(path, columns=columns)
    odd = [n for n, t in frame.schema.items() if not t.is_integer()]
    if odd:
        kinds = parquet_kinds.kinds(path, shown)
        odd = [n for n in odd if kinds.get(n) == "integer"]
    if not odd:
        return frame
    stored = pl.read_parquet(io.BytesIO(hidden_schema(path, shown)), columns=odd)
    for name, dtype in stored.schema.items():
        if not dtype.is_integer():
            raise ValueError(f"column {name!r} reads as {dtype}, not as integers")
    return frame.with_columns(stored)
