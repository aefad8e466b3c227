"""Reading the bundle's parquet files with fastparquet; types from the parquet schema."""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import Any

import fastparquet
import numpy as np
import pandas as pd
from fastparquet import parquet_thrift
from fastparquet.cencoding import from_buffer

from .errors import MISSING_FILE, UNREADABLE, InputError
from .footer import FooterError, check_footer
from .values import BOOLEAN, FLOATING, INTEGER, OTHER, STRING

_MAGIC = b"PAR1"
_PT = parquet_thrift.Type
_CT = parquet_thrift.ConvertedType
_NOT_INTEGER = {
    _CT.DECIMAL,
    _CT.DATE,
    _CT.TIME_MILLIS,
    _CT.TIME_MICROS,
    _CT.TIMESTAMP_MILLIS,
    _CT.TIMESTAMP_MICROS,
    _CT.INTERVAL,
}
_STRING_CONVERTED = {_CT.UTF8, _CT.ENUM, _CT.JSON}


@dataclass
class Table:
    """A parquet table: top-level names in file order, their kinds, the data.

    `frame` is None when two columns share a name (fastparquet cannot load
    such a file; the duplicate_column check reports it)."""

    display: str
    names: list[str]
    kinds: dict[str, str]
    frame: pd.DataFrame | None
    pfile: Any = None  # the fastparquet.ParquetFile of a table whose data is read later


def require_file(display: str, path: str) -> None:
    """missing_file unless `path` is an existing regular file."""
    if not os.path.isfile(path):
        raise InputError(MISSING_FILE, display, "no such regular file")


def _has(logical: Any, field: str) -> bool:
    return logical is not None and getattr(logical, field, None) is not None


def _kind(element: Any) -> str:
    """The contract's kind of a top-level schema element."""
    if element.num_children:
        return OTHER
    ptype, conv, logical = element.type, element.converted_type, element.logicalType
    if ptype == _PT.BOOLEAN:
        return BOOLEAN
    if ptype in (_PT.INT32, _PT.INT64):
        if conv in _NOT_INTEGER or any(
            _has(logical, f) for f in ("DATE", "TIME", "TIMESTAMP", "DECIMAL")
        ):
            return OTHER
        return INTEGER
    if ptype in (_PT.FLOAT, _PT.DOUBLE):
        return FLOATING
    if ptype == _PT.BYTE_ARRAY and (
        conv in _STRING_CONVERTED or any(_has(logical, f) for f in ("STRING", "ENUM", "JSON"))
    ):
        return STRING
    return OTHER


def _schema(display: str, path: str) -> tuple[list[str], list[str]]:
    """Parse the footer: top-level column names (duplicates kept) and kinds."""
    try:  # the magic bytes at both ends, the footer length, the footer: not the data
        with open(path, "rb") as handle:
            length = handle.seek(0, os.SEEK_END)
            handle.seek(0)
            head = handle.read(4)
            handle.seek(max(length - 8, 0))
            tail = handle.read(8)
            size = struct.unpack("<I", tail[:4])[0] if length >= 12 else 0
            footer = b""
            if 0 < size <= length - 12:
                handle.seek(length - 8 - size)
                footer = handle.read(size)
    except OSError as exc:
        raise InputError(UNREADABLE, display, f"cannot read: {exc.strerror or exc}") from None
    if length < 12 or head != _MAGIC or tail[-4:] != _MAGIC:
        raise InputError(UNREADABLE, display, "not a parquet file (magic bytes missing)")
    if size <= 0 or size > length - 12 or len(footer) != size:
        raise InputError(UNREADABLE, display, "not a parquet file (bad footer length)")
    try:
        check_footer(footer)
    except FooterError as exc:
        raise InputError(UNREADABLE, display, f"corrupted parquet footer: {exc}") from None
    try:
        meta = from_buffer(footer, "FileMetaData")
        elements = list(meta.schema)
        names: list[str] = []
        kinds: list[str] = []

        def subtree_end(i: int) -> int:
            j = i + 1
            for _ in range(elements[i].num_children or 0):
                j = subtree_end(j)
            return j

        i = 1
        for _ in range(elements[0].num_children or 0):
            element = elements[i]
            name = element.name
            names.append(name.decode("utf-8") if isinstance(name, bytes) else str(name))
            kinds.append(_kind(element))
            i = subtree_end(i)
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any parse failure means unreadable
        raise InputError(UNREADABLE, display, f"cannot parse parquet footer: {exc}") from None
    return names, kinds


def _decode_strings(frame: pd.DataFrame, kinds: dict[str, str]) -> None:
    for name, kind in kinds.items():
        if kind == STRING and name in frame.columns:
            col = frame[name]
            if any(isinstance(v, bytes) for v in col.to_numpy(dtype=object)):
                frame[name] = col.map(lambda v: v.decode("utf-8") if isinstance(v, bytes) else v)


def load_table(display: str, path: str, columns: list[str] | None = None) -> Table:
    """Parse the footer and read every column (or only `columns`) as Python objects.

    Unreadable on failure. Reading as object keeps a null (None) apart from a
    NaN in float columns."""
    names, kind_list = _schema(display, path)
    kinds = dict(zip(names, kind_list))
    if len(set(names)) != len(names):
        return Table(display, names, kinds, None)
    try:
        pfile = fastparquet.ParquetFile(path, verify=True)
        # fastparquet returns every column named in `dtypes`, whatever `columns` says
        dtypes = {name: np.dtype("O") for name in (pfile.columns if columns is None else columns)}
        frame = pfile.to_pandas(columns=columns, index=False, categories=[], dtypes=dtypes)
        if list(frame.columns) != (names if columns is None else columns):
            raise ValueError("column layout not supported")
        _decode_strings(frame, kinds)
    except Exception as exc:  # noqa: BLE001 - any read failure means unreadable
        raise InputError(UNREADABLE, display, f"cannot read parquet data: {exc}") from None
    return Table(display, names, kinds, frame.reset_index(drop=True))


def load_schema(display: str, path: str) -> Table:
    """Parse the footer only (unreadable on failure); the data is read later, by column.

    Used for the instance table, which can be large: see instances.py."""
    names, kind_list = _schema(display, path)
    pfile = None
    if len(set(names)) == len(names):
        try:
            pfile = fastparquet.ParquetFile(path, verify=True)
        except Exception as exc:  # noqa: BLE001 - any read failure means unreadable
            raise InputError(UNREADABLE, display, f"cannot read parquet metadata: {exc}") from None
    return Table(display, names, dict(zip(names, kind_list)), None, pfile)
