"""Column chunks fastparquet cannot read: found from their first page headers, read here.

Two layouts, both of valid files that pyarrow reads:
- an empty dictionary page (a dictionary-encoded chunk whose every value is
  null, as pyarrow writes it): fastparquet fails on the page of zero bytes
  ("an integer is required"); such a chunk is all null, since no index can
  point into an empty dictionary;
- booleans in DataPage v2 pages, below.

fastparquet 2026.9.0 decodes an RLE-encoded boolean DataPage v2 page taking the
page's whole size, its 4-byte length prefix included, as the length of the
values, and writes past the end of its output array: on the real bundle
rewritten with `data_page_version="2.0"` the process dies of a segmentation
fault (an object read fails instead: "Cannot change data-type for array of
references"). pyarrow's writer stores every boolean column that way in a v2
file. So for a boolean column chunk whose first page is a DataPage v2, this
module reads the pages itself: the page headers (Thrift compact protocol, the
format the footer check walks), the values decompressed by cramjam (the
codec library fastparquet itself uses), the definition levels and the values
decoded from their RLE / bit-packed hybrid with numpy. Every other chunk is
fastparquet's, read through its public API.
"""

from __future__ import annotations

import gzip
from typing import Any

import cramjam
import numpy as np
import pandas as pd

from .footer import Thrift, _Walk

_DATA_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 2, 3
_PLAIN, _RLE = 0, 3
_HEADER_MAX = 1 << 16  # bytes read for one page header (its statistics included)
_DECOMPRESS = {
    0: lambda data, size: data,
    1: lambda data, size: bytes(cramjam.snappy.decompress_raw(data)),
    2: lambda data, size: gzip.decompress(data),
    4: lambda data, size: bytes(cramjam.brotli.decompress(data)),
    6: lambda data, size: bytes(cramjam.zstd.decompress(data)),
    7: lambda data, size: bytes(cramjam.lz4.decompress_block(data, output_len=size)),
}


def _header(handle: Any, offset: int) -> tuple[dict[int, Any], int]:
    """The page header at `offset` and its length in bytes."""
    handle.seek(offset)
    walk = Thrift(handle.read(_HEADER_MAX))
    header = walk.read_struct()
    return header, walk.pos


def _start(meta: Any) -> int:
    return min(meta.dictionary_page_offset or meta.data_page_offset, meta.data_page_offset)


V1, V2, EMPTY = "v1", "v2", "empty"  # what a chunk's first pages say


def layout(handle: Any, meta: Any) -> str:
    """EMPTY for an empty dictionary page, else V2 if the first data page is a DataPage v2."""
    offset = _start(meta)
    header, length = _header(handle, offset)
    if header.get(1) == _DICTIONARY_PAGE:
        if not header.get(7, {}).get(1, 0):
            return EMPTY
        header, _ = _header(handle, offset + length + header[3])
    return V2 if header.get(1) == _DATA_PAGE_V2 else V1


def _hybrid(data: bytes, pos: int, end: int, width: int, count: int) -> np.ndarray:
    """`count` values of `width` bits from an RLE / bit-packed hybrid run in data[pos:end]."""
    parts: list[np.ndarray] = []
    got = 0
    walk = _Walk(data[:end])
    walk.pos = pos
    size = (width + 7) // 8
    while got < count:
        head = walk.varint()
        if head & 1:  # bit-packed: groups of 8 values
            nbytes = (head >> 1) * width
            start = walk.pos
            walk.skip(nbytes)
            bits = np.unpackbits(np.frombuffer(data, np.uint8, nbytes, start), bitorder="little")
            if width > 1:
                weights = (1 << np.arange(width)).astype(np.uint32)
                bits = (bits.reshape(-1, width).astype(np.uint32) * weights).sum(axis=1)
            parts.append(bits)
            got += len(bits)
        else:  # a run of one value
            start = walk.pos
            walk.skip(size)
            value = int.from_bytes(data[start : start + size], "little")
            parts.append(np.full(head >> 1, value, dtype=np.uint32))
            got += head >> 1
    out = np.concatenate(parts) if parts else np.empty(0, dtype=np.uint32)
    return out[:count]


def read_v2(handle: Any, meta: Any, max_def: int) -> tuple[np.ndarray, np.ndarray]:
    """(true, non-null) per row of a boolean column chunk stored in DataPage v2 pages."""
    rows = int(meta.num_values)
    true = np.zeros(rows, dtype=bool)
    valid = np.ones(rows, dtype=bool)
    at = 0
    offset = _start(meta)
    end = offset + meta.total_compressed_size
    width = max_def.bit_length()
    while at < rows:
        if offset >= end:
            raise ValueError("the column chunk ends before its values")
        header, length = _header(handle, offset)
        compressed = header[3]
        handle.seek(offset + length)
        page = handle.read(compressed)
        offset += length + compressed
        if header.get(1) == _DICTIONARY_PAGE:
            raise ValueError("a boolean column chunk with a dictionary page")
        if header.get(1) != _DATA_PAGE_V2:
            raise ValueError("DataPage v1 and v2 pages mixed in one column chunk")
        v2 = header[8]
        values, nulls = v2[1], v2.get(2, 0)
        def_len, rep_len = v2.get(5, 0), v2.get(6, 0)
        if rep_len or values > rows - at or len(page) != compressed:
            raise ValueError("a boolean page that does not fit its column chunk")
        body = page[rep_len + def_len :]
        if v2.get(7, True):
            body = _DECOMPRESS[meta.codec](body, header[2] - rep_len - def_len)
        here = slice(at, at + values)
        if width and nulls:
            valid[here] = _hybrid(page, rep_len, rep_len + def_len, width, values) == max_def
        present = values - nulls
        encoding = v2[4]
        if encoding == _RLE:
            size = int.from_bytes(body[:4], "little")
            flags = _hybrid(body, 4, 4 + size, 1, present).astype(bool)
        elif encoding == _PLAIN:
            flags = np.unpackbits(np.frombuffer(body, np.uint8), bitorder="little")[:present]
            flags = flags.astype(bool)
        else:
            raise ValueError(f"boolean page encoding {encoding}")
        if len(flags) != present or int(valid[here].sum()) != present:
            raise ValueError("a boolean page holds fewer values than it counts")
        true[here][valid[here]] = flags
        at += values
    return true, valid


def _chunk(rg: Any, name: str) -> Any:
    found = [c.meta_data for c in rg.columns if list(c.meta_data.path_in_schema) == [name]]
    if len(found) != 1:
        raise ValueError(f"column '{name}' is not one column chunk per row group")
    return found[0]


def layouts(pf: Any, path: str, names: list[str], groups: list[int]) -> dict[str, list[str]]:
    """Per column of `names`: the layout of its chunk in each of the row groups `groups`."""
    out: dict[str, list[str]] = {}
    with open(path, "rb") as handle:
        for name in names:
            out[name] = [
                layout(handle, _chunk(pf.row_groups[g], name)) if pf.row_groups[g].num_rows else V1
                for g in groups
            ]
    return out


def read_column(pf: Any, path: str, name: str, groups: list[int]) -> pd.Series:
    """A boolean column over row groups `groups`, as pandas' nullable booleans."""
    max_def = pf.schema.max_definition_level([name])
    trues, valids = [], []
    with open(path, "rb") as handle:
        for g in groups:
            rg = pf.row_groups[g]
            if not rg.num_rows:
                continue
            true, valid = read_v2(handle, _chunk(rg, name), max_def)
            if len(true) != rg.num_rows:
                raise ValueError(f"column '{name}' does not hold one value per row")
            trues.append(true)
            valids.append(valid)
    true = np.concatenate(trues) if trues else np.empty(0, dtype=bool)
    valid = np.concatenate(valids) if valids else np.empty(0, dtype=bool)
    return pd.Series(pd.arrays.BooleanArray(true, ~valid))
