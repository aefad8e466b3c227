"""Locating and reading the bundle's parquet files with pyarrow."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import InputError
from .schema import check_declared_size, check_layout, check_utf8, conform, kinds


def bundle_path(bundle_dir: str, name: str) -> str:
    """A bundle file's path as reported in errors: BUNDLE_DIR joined with the name."""
    return os.path.join(bundle_dir, name)


def require_file(path: str) -> None:
    """missing_file unless the path is an existing regular file."""
    if not os.path.isfile(path):
        raise InputError("missing_file", path, "no such regular file")


def open_parquet(path: str, layout: bool = True) -> pq.ParquetFile:
    """Open a parquet file and read its footer; unreadable on failure.

    Arrow looks for the magic bytes only at the end; a parquet file starts with
    them too, so a file whose head is not ``PAR1`` is refused here. With `layout`
    (cells v1, which lists the encodings and codecs it reads), so is a column
    chunk of another encoding or codec; the trials contract lists none."""
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
    if layout:
        check_declared_size(pf, path)
        check_layout(pf, path)
    return pf


def read_some(pf: pq.ParquetFile, path: str, names: list[str] | None = None) -> pa.Table:
    """The named columns (or every column) as stored; unreadable on a corrupted data page."""
    try:
        return pf.read(columns=names, use_threads=True)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"cannot read parquet data: {exc}") from None


def read_all(pf: pq.ParquetFile, path: str) -> pa.Table:
    """The leaderboard (published whole): every column of a type the contract reads.

    A column of another type is not read: it stands as a column of nulls, in its
    place (a label's cells are written empty; in any other role unsupported_type
    refuses it later). A name given twice: every column is read, duplicate_column
    refuses it."""
    kinds_of = kinds(pf)
    names = pf.schema_arrow.names
    wanted = (
        names if len(set(names)) != len(names) else [n for n in names if kinds_of[n] != "other"]
    )
    try:
        table = pf.read(columns=wanted, use_threads=True)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"cannot read parquet data: {exc}") from None
    if len(set(names)) == len(names):
        check_utf8({n: table.column(n) for n in wanted if kinds_of[n] == "string"}, path)
        table = conform(table, kinds_of)
        rows = pf.metadata.num_rows
        for i, n in enumerate(names):
            if kinds_of[n] == "other":
                table = table.add_column(i, n, pa.nulls(rows))
    return table


def read_columns(path: str, names: list[str], stored_dictionaries: bool = False) -> pa.Table:
    """Only the named columns (names unique in the file); unreadable on failure.

    String and binary columns come back dictionary-encoded (values unchanged),
    which keeps repeated keys small in memory; with `stored_dictionaries`, only
    those the file stores with a dictionary (the others, say one id per row,
    would cost a hash of every value to encode).
    """
    try:
        probe = pq.ParquetFile(path, memory_map=True)
        schema = probe.schema_arrow
        as_dictionary = [
            n
            for n in names
            if _string_like(schema.field(n).type)
            and (not stored_dictionaries or _dictionary_encoded(probe, n))
        ]
        pf = pq.ParquetFile(path, memory_map=True, read_dictionary=as_dictionary)
        if stored_dictionaries and pf.num_row_groups > 1:
            # row group by row group, kept as chunks: a whole read joins the row
            # groups of a plain string column into one array, twice the memory
            parts = [
                pf.read_row_group(g, columns=names, use_threads=True)
                for g in range(pf.num_row_groups)
            ]
            table = pa.concat_tables(parts)
        else:
            table = pf.read(columns=names, use_threads=True)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"cannot read parquet data: {exc}") from None
    kinds_of = kinds(probe)
    check_utf8({n: table.column(n) for n in names if kinds_of[n] == "string"}, path)
    return conform(table, kinds_of)


def _increasing(columns: list[pa.Array]) -> bool:
    """True if every row is strictly greater than the one before it, in the columns' order.

    Arrow's comparison; a null or NaN anywhere, or a type Arrow cannot compare,
    is False (the caller then checks the keys the general way: a NaN is bad_type)."""
    for col in columns:
        if pa.types.is_floating(col.type) and pc.any(pc.is_nan(col)).as_py():
            return False
    n = len(columns[0])
    if n < 2:
        return True
    inc: pa.Array | None = None
    for col in reversed(columns):
        before, after = col.slice(0, n - 1), col.slice(1)
        less = pc.less(before, after)
        inc = less if inc is None else pc.or_(less, pc.and_(pc.equal(before, after), inc))
    assert inc is not None
    return inc.null_count == 0 and bool(pc.all(inc).as_py())


def _dictionary_encoded(pf: pq.ParquetFile, name: str) -> bool:
    """True if every row group stores the column with a dictionary (cheap to read as one)."""
    meta = pf.metadata
    leaves = [meta.schema.column(i).path for i in range(meta.num_columns)]
    if leaves.count(name) != 1:
        return False
    at = leaves.index(name)
    for g in range(meta.num_row_groups):
        column = meta.row_group(g).column(at)
        if not {"PLAIN_DICTIONARY", "RLE_DICTIONARY"} & set(column.encodings):
            return False
    return True


def _ordered(column: pa.Array) -> pa.Array | None:
    """Values in the column's order: a dictionary column's dense ranks (None if it holds nulls).

    Ranks compare as the values do within one batch (one dictionary), not across batches."""
    if not pa.types.is_dictionary(column.type):
        return column
    if column.null_count or column.dictionary.null_count:
        return None
    ranks = pc.rank(column.dictionary, sort_keys="ascending", tiebreaker="dense")
    return pc.take(ranks, column.indices)


def keys_increasing(path: str, names: list[str]) -> bool:
    """Read the key columns batch by batch: are the rows strictly increasing by key?

    Strictly increasing rows cannot share a key, so no duplicate_key check is
    needed then. Every page of the columns is read (unreadable on failure),
    unless the answer is known to be no; the caller then reads them whole.
    String columns stored with a dictionary are read as one and compared by rank
    within a batch; the rows at the edge between two batches by value."""
    try:
        probe = pq.ParquetFile(path, memory_map=True)
        as_dictionary = [
            n
            for n in names
            if _string_like(probe.schema_arrow.field(n).type) and _dictionary_encoded(probe, n)
        ]
        pf = pq.ParquetFile(path, memory_map=True, read_dictionary=as_dictionary)
        kinds_of = kinds(probe)
        strings = [n for n in names if kinds_of[n] == "string"]
        last: list[pa.Array] | None = None
        for batch in pf.iter_batches(batch_size=1 << 17, columns=names, use_threads=True):
            if batch.num_rows == 0:
                continue
            check_utf8({n: batch.column(n) for n in strings}, path)
            cols = [c.chunk(0) for c in conform(pa.Table.from_batches([batch]), kinds_of).columns]
            if last is not None:
                edge = [pa.concat_arrays([a, _decoded(b.slice(0, 1))]) for a, b in zip(last, cols)]
                if not _increasing(edge):
                    return False
            ordered = [_ordered(c) for c in cols]
            if any(c is None for c in ordered) or not _increasing(ordered):  # type: ignore[arg-type]
                return False
            last = [_decoded(c.slice(len(c) - 1, 1)) for c in cols]
    except pa.ArrowNotImplementedError:
        return False
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise InputError("unreadable", path, f"cannot read parquet data: {exc}") from None
    return True


def _decoded(column: pa.Array) -> pa.Array:
    """A dictionary column's values; any other column as it is."""
    if pa.types.is_dictionary(column.type):
        return column.dictionary_decode()
    return column


def _string_like(typ: pa.DataType) -> bool:
    return (
        pa.types.is_string(typ)
        or pa.types.is_large_string(typ)
        or pa.types.is_binary(typ)
        or pa.types.is_large_binary(typ)
    )
