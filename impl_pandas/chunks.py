"""One column chunk of a row group, read straight from its pages: no DataFrame.

fastparquet's own decoders do the work (page headers, decompression,
definition levels, dictionary pages, bit-packed indices, plain values), in
the order its `read_col` calls them; what is skipped is the DataFrame around
them, and, for plain string pages, the decoding of every value: those pages
are kept as bytes until a role needs them (instances.py).

Only the simple, common layout is read here: a top-level column of strings
(UTF8), doubles, floats or booleans, DATA_PAGE (v1) pages, plain or
dictionary encoded, every index inside its dictionary, as many values as the
row group has rows. Anything else raises, and the caller reads that column
of that row group through fastparquet's DataFrame, as before: what that
reader accepts or refuses, and how it reads it, stays its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from fastparquet import core, parquet_thrift
from fastparquet.cencoding import NumpyIO, ThriftObject

_PT = parquet_thrift.Type
_ENC = parquet_thrift.Encoding
_PAGE = parquet_thrift.PageType
_UTF8 = parquet_thrift.ConvertedType.UTF8
_DICTIONARY = (_ENC.PLAIN_DICTIONARY, _ENC.RLE_DICTIONARY)
_FAST_TYPES = (_PT.BYTE_ARRAY, _PT.DOUBLE, _PT.FLOAT, _PT.BOOLEAN)


class Unsupported(Exception):
    """This chunk is left to the DataFrame reader."""


@dataclass
class Chunk:
    """A column chunk: which rows hold a value, and the values.

    Exactly one of `indices` (into `dictionary`), `values` or `pages` (plain
    BYTE_ARRAY pages, undecoded: (bytes, number of values)) holds the non-null
    values, in row order."""

    rows: int
    valid: np.ndarray | None  # per row: not null; None when no row is null
    dictionary: np.ndarray | None = None
    indices: np.ndarray | None = None
    values: np.ndarray | None = None
    pages: list[tuple[Any, int]] = field(default_factory=list)


def readable(pf: Any, name: str) -> bool:
    """Whether the column's schema is one this module reads."""
    try:
        se = pf.schema.schema_element([name])
    except (KeyError, AttributeError):
        return False
    if se.num_children or se.type not in _FAST_TYPES:
        return False
    if se.repetition_type == parquet_thrift.FieldRepetitionType.REPEATED:
        return False
    if se.type == _PT.BYTE_ARRAY:
        return se.converted_type == _UTF8 and (
            se.logicalType is None or getattr(se.logicalType, "STRING", None) is not None
        )
    return se.converted_type is None and se.logicalType is None


def _column(rg: Any, name: str) -> Any:
    found = [c for c in rg.columns if list(c.meta_data.path_in_schema) == [name]]
    if len(found) != 1:
        raise Unsupported(name)
    return found[0]


def read(pf: Any, handle: Any, rg: Any, name: str) -> Chunk:
    """Read column `name` of row group `rg` (Unsupported, or any decoding error)."""
    cmd = _column(rg, name).meta_data
    helper = pf.schema
    path = cmd.path_in_schema
    helper.schema_element(path)  # KeyError: a column the schema does not know
    if cmd.key_value_metadata or helper.max_repetition_level(path) or cmd.num_values != rg.num_rows:
        raise Unsupported(name)
    start = min(cmd.dictionary_page_offset or cmd.data_page_offset, cmd.data_page_offset)
    handle.seek(start)
    infile = NumpyIO(handle.read(cmd.total_compressed_size))
    max_def = helper.max_definition_level(path)
    required = helper.is_required(path)
    # as fastparquet's read_col: a file it wrote, whose statistics count no null, skips the levels
    skip_nulls = bool(
        pf.selfmade
        and hasattr(cmd, "statistics")
        and getattr(cmd.statistics, "null_count", 1) == 0
        and not required
    )
    byte_array = cmd.type == _PT.BYTE_ARRAY
    dictionary = None
    valid: list[np.ndarray | int] = []  # per page: its mask, or its number of rows (no null)
    coded: list[np.ndarray] = []
    plain: list[np.ndarray] = []
    pages: list[tuple[Any, int]] = []
    num = 0
    while num < cmd.num_values:
        ph = ThriftObject.from_buffer(infile, "PageHeader")
        if ph.type == _PAGE.DICTIONARY_PAGE:
            if dictionary is not None:
                raise Unsupported(name)
            dictionary = core.read_dictionary_page(infile, helper, ph, cmd, utf=byte_array)
            if byte_array and len(dictionary) and dictionary[-1] is None:
                raise Unsupported(name)  # the page ran out of bytes
            continue
        if ph.type != _PAGE.DATA_PAGE:
            raise Unsupported(name)
        daph = ph.data_page_header
        encoding = daph.encoding
        if encoding in _DICTIONARY:
            if dictionary is None:
                raise Unsupported(name)
        elif encoding != _ENC.PLAIN:
            raise Unsupported(name)
        if byte_array and encoding == _ENC.PLAIN:
            raw = core._read_page(infile, ph, cmd)
            io_obj = NumpyIO(raw)
            if skip_nulls:
                defi, nulls = None, 0
                core.skip_definition_bytes(io_obj, daph.num_values)
            else:
                defi, nulls = core.read_def(io_obj, daph, helper, cmd)
            count = int(daph.num_values - nulls)
            pages.append((io_obj.read(), count))
            got = count
        else:
            defi, _, val = core.read_data_page(
                infile, helper, ph, cmd, skip_nulls, selfmade=pf.selfmade
            )
            got = len(val)
            if encoding == _ENC.PLAIN:
                plain.append(val)
            else:
                coded.append(val)
        if defi is not None:
            mask = defi == max_def
            if int(np.count_nonzero(mask)) != got:
                raise Unsupported(name)
            valid.append(mask)
            num += len(defi)
        else:
            valid.append(got)
            num += got
    if num != rg.num_rows or sum(map(bool, (coded, plain, pages))) > 1:
        raise Unsupported(name)  # dictionary and plain pages mixed, or rows not as counted
    chunk = Chunk(rg.num_rows, _valid(valid, rg.num_rows))
    if coded:
        assert dictionary is not None
        indices = np.concatenate(coded) if len(coded) > 1 else coded[0]
        if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= len(dictionary)):
            raise Unsupported(name)
        chunk.dictionary, chunk.indices = dictionary, indices
    elif pages:
        chunk.pages = pages
    elif plain:
        chunk.values = np.concatenate(plain) if len(plain) > 1 else plain[0]
    else:
        raise Unsupported(name)
    return chunk


def _valid(parts: list[np.ndarray | int], rows: int) -> np.ndarray | None:
    """The rows holding a value, from each page's mask (or its row count: no null)."""
    if all(isinstance(p, int) for p in parts):
        return None
    out = np.empty(rows, dtype=bool)
    at = 0
    for p in parts:
        size = p if isinstance(p, int) else len(p)
        out[at : at + size] = True if isinstance(p, int) else p
        at += size
    return out
