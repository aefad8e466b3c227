"""A parquet file written byte by byte: one INT64 column, one GZIP data page of zeros.

Small on disk, as large as asked once decompressed (deflate stores a run of zeros
at about 1000 to 1): the decompression bomb the read bounds must refuse before any
reader allocates for it. Written here by hand (the Thrift compact protocol of the
parquet footer and page header) so a test needs neither contestant's library, and
so the page can declare what it really holds. ``bomb(path, 8)`` is a readable
8-row file the test reads with polars, to show the builder writes real parquet.
"""

from __future__ import annotations

import zlib
from pathlib import Path

_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def _struct(fields: list[tuple[int, int, object]]) -> bytes:
    """A compact-protocol struct of (field id, type, value), ids ascending by 1..15."""
    out, last = bytearray(), 0
    for fid, kind, value in fields:
        out.append(((fid - last) << 4) | kind)
        last = fid
        out += _value(kind, value)
    out.append(0)
    return bytes(out)


def _value(kind: int, value: object) -> bytes:
    if kind in (_I32, _I64):
        assert isinstance(value, int)
        return _zigzag(value)
    if kind == _BINARY:
        assert isinstance(value, bytes)
        return _varint(len(value)) + value
    if kind == _STRUCT:
        assert isinstance(value, bytes)
        return value
    assert kind == _LIST and isinstance(value, tuple)
    elem, items = value
    return bytes([(len(items) << 4) | elem]) + b"".join(_value(elem, i) for i in items)


def _gzip_zeros(n: int) -> bytes:
    """GZIP of n zero bytes, made a mebibyte at a time (never n bytes in memory)."""
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    parts = []
    left = n
    while left:
        take = min(left, len(chunk))
        parts.append(z.compress(chunk[:take]))
        left -= take
    parts.append(z.flush())
    return b"".join(parts)


def bomb(path: Path, rows: int, honest_footer: bool = False) -> int:
    """Write the file; return its size. Its one page declares, and holds, rows x 8 bytes;
    the footer understates the chunk's uncompressed size as its compressed one unless
    ``honest_footer`` (then it declares the page's size, as a writer would)."""
    raw = rows * 8
    data = _gzip_zeros(raw)
    page = _struct(
        [
            (1, _I32, 0),  # DATA_PAGE
            (2, _I32, raw),
            (3, _I32, len(data)),
            (5, _STRUCT, _struct([(1, _I32, rows), (2, _I32, 0), (3, _I32, 3), (4, _I32, 3)])),
        ]
    )
    chunk = len(page) + len(data)
    column_meta = _struct(
        [
            (1, _I32, 2),  # INT64
            (2, _LIST, (_I32, [0])),  # PLAIN
            (3, _LIST, (_BINARY, [b"x"])),
            (4, _I32, 2),  # GZIP
            (5, _I64, rows),
            (6, _I64, len(page) + raw if honest_footer else chunk),
            (7, _I64, chunk),
            (9, _I64, 4),
        ]
    )
    column = _struct([(2, _I64, 4), (3, _STRUCT, column_meta)])
    group = _struct([(1, _LIST, (_STRUCT, [column])), (2, _I64, chunk), (3, _I64, rows)])
    schema = [
        _struct([(4, _BINARY, b"schema"), (5, _I32, 1)]),
        _struct([(1, _I32, 2), (3, _I32, 0), (4, _BINARY, b"x")]),  # INT64, REQUIRED
    ]
    meta = _struct(
        [
            (1, _I32, 1),
            (2, _LIST, (_STRUCT, schema)),
            (3, _I64, rows),
            (4, _LIST, (_STRUCT, [group])),
        ]
    )
    body = b"PAR1" + page + data + meta + len(meta).to_bytes(4, "little") + b"PAR1"
    path.write_bytes(body)
    return len(body)
