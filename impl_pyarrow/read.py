"""Locating and reading the bundle's parquet files with pyarrow."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import InputError


def bundle_path(bundle_dir: str, name: str) -> str:
    """A bundle file's path as reported in errors: BUNDLE_DIR joined with the name."""
    return os.path.join(bundle_dir, name)


def require_file(path: str) -> None:
    """missing_file unless the path is an existing regular file."""
    if not os.path.isfile(path):
        raise InputError("missing_file", path, "no such regular file")


def open_parquet(path: str) -> pq.ParquetFile:
    """Open a parquet file and read its footer; unreadable on failure.

    Arrow looks for the magic bytes only at the end; a parquet file starts with
    them too, so a file whose head is not ``PAR1`` is refused here."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise InputError("unreadable", path, f"cannot read: {exc.strerror or exc}") from None
    if head != b"PAR1":
        raise InputError(
            "unreadable", path, "not a parquet file (magic bytes missing at the start)"
        )
    try:
        pf = pq.ParquetFile(path, memory_map=True)
        _ = pf.schema_arrow
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"not a readable parquet file: {exc}") from None
    return pf


def read_all(pf: pq.ParquetFile, path: str) -> pa.Table:
    """Every column of the file (the leaderboard is published whole)."""
    try:
        return pf.read(use_threads=True)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"cannot read parquet data: {exc}") from None


def read_columns(path: str, names: list[str]) -> pa.Table:
    """Only the named columns (names unique in the file); unreadable on failure.

    String and binary columns come back dictionary-encoded (values unchanged),
    which keeps repeated keys small in memory.
    """
    try:
        schema = pq.ParquetFile(path, memory_map=True).schema_arrow
        as_dictionary = [
            n
            for n in names
            if pa.types.is_string(schema.field(n).type)
            or pa.types.is_large_string(schema.field(n).type)
            or pa.types.is_binary(schema.field(n).type)
            or pa.types.is_large_binary(schema.field(n).type)
        ]
        pf = pq.ParquetFile(path, memory_map=True, read_dictionary=as_dictionary)
        return pf.read(columns=names, use_threads=True)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"cannot read parquet data: {exc}") from None
