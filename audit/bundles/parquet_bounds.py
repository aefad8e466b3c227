"""How much a parquet file may become once read: a bound checked before any full read.

A parquet file is compressed page by page, and its run-length and dictionary
encodings can stand for any number of values in a few bytes: a file of a few
kilobytes can ask its reader for gigabytes. polars' public API tells neither a
file's uncompressed size nor its pages' (``read_parquet_schema`` gives types,
``read_parquet_metadata`` the writer's key-value pairs), so the referee reads
them itself, without decompressing anything: the footer (Thrift compact
protocol, the format's own metadata) and then the header of every page of every
column chunk, which is what a reader trusts when it allocates. The bound is on
what the pages declare, not on what the footer claims of them (a footer can
understate its pages).

The bound (docs/refusals.md, "Bounds on what is read"):

- the pages' uncompressed bytes, summed over the file, at most
  ``max(FLOOR, RATIO x the file's size)`` and never above ``CAP``;
- the values the pages declare (and the footer's row count times its columns),
  at most ``MAX_VALUES``.

Past either, ``error[too_large]: <file>: ...``, exit 2, before the file is read.
A footer or page header that is not well-formed is ``unreadable``.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from audit.errors import AuditError
from audit.files import open_regular

FLOOR = 256 << 20  # any file may decompress to 256 MiB
RATIO = 64  # beyond the floor, at most 64 times its own size...
CAP = 8 << 30  # ...and never more than 8 GiB
MAX_VALUES = 1 << 28  # 268,435,456 values (about 16 bytes each once read)
_MAX_DEPTH = 64


class _Malformed(ValueError):
    pass


class _Thrift:
    """A Thrift compact-protocol struct reader over a bounded buffer."""

    def __init__(self, data: bytes | mmap.mmap, pos: int, end: int, strings: bool = False) -> None:
        self.data, self.pos, self.end = data, pos, end
        self.strings = strings  # keep binary and string values (the footer's), not only skip them

    def byte(self) -> int:
        if self.pos >= self.end:
            raise _Malformed(f"ends inside a value (byte {self.pos})")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        value = 0
        for shift in range(0, 70, 7):
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
        raise _Malformed(f"an integer at byte {self.pos} is too long")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def skip(self, n: int) -> None:
        if n < 0 or self.pos + n > self.end:
            raise _Malformed(f"a length at byte {self.pos} runs past the end")
        self.pos += n

    def value(self, kind: int, depth: int, want: bool) -> object:
        """One value of Thrift type ``kind``; structs and lists kept only when ``want``."""
        if kind in (1, 2):  # a boolean field: the type is the value
            return kind == 1
        if kind == 3:
            return self.byte()
        if kind in (4, 5, 6):
            return self.zigzag()
        if kind == 7:
            self.skip(8)
            return None
        if kind == 8:
            n = self.varint()
            start = self.pos
            self.skip(n)
            return bytes(self.data[start : start + n]) if want and self.strings else None
        if kind in (9, 10):
            size, elem = self.list_head()
            items = []
            for _ in range(size):
                item = self.byte() == 1 if elem in (1, 2) else self.value(elem, depth, want)
                if want:
                    items.append(item)
            return items
        if kind == 11:
            size = self.varint()
            if size:
                types = self.byte()
                if 2 * size > self.end - self.pos:
                    raise _Malformed(f"a map at byte {self.pos} claims {size} entries")
                for _ in range(size):
                    for t in (types >> 4, types & 0x0F):
                        if t in (1, 2):
                            self.byte()
                        else:
                            self.value(t, depth, False)
            return None
        if kind == 12:
            return self.struct(depth + 1, want)
        raise _Malformed(f"unknown field type {kind} at byte {self.pos}")

    def list_head(self) -> tuple[int, int]:
        """A list's or set's header: its size and its elements' type."""
        head = self.byte()
        size = head >> 4
        if size == 15:
            size = self.varint()
        if size > self.end - self.pos:  # every element takes at least a byte
            raise _Malformed(f"a list at byte {self.pos} claims {size} elements")
        return size, head & 0x0F

    def fields(self) -> Iterator[tuple[int, int]]:
        """A struct's fields in turn, each as (field id, type), the reader left at its value,
        which the caller reads (``value``) before asking for the next."""
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return
            delta = head >> 4
            field = last + delta if delta else self.zigzag()
            yield field, head & 0x0F
            last = field

    def struct(self, depth: int = 0, want: bool = True) -> dict[int, object]:
        if depth > _MAX_DEPTH:
            raise _Malformed("structs nested too deeply")
        out: dict[int, object] = {}
        for field, kind in self.fields():
            out[field] = self.value(kind, depth, want)
        return out


# Field ids of parquet.thrift (FileMetaData, RowGroup, ColumnChunk, ColumnMetaData, PageHeader).
_FMD_NUM_ROWS, _FMD_ROW_GROUPS, _FMD_KEY_VALUE = 3, 4, 5
_KV_KEY = 1
_RG_COLUMNS = 1
_CC_META = 3
_CMD_NUM_VALUES, _CMD_COMPRESSED, _CMD_DATA_OFFSET, _CMD_DICT_OFFSET = 5, 7, 9, 11
_PH_UNCOMPRESSED, _PH_COMPRESSED = 2, 3
_PH_VALUE_HEADERS = (5, 7, 8)  # data page, dictionary page, data page v2: num_values is field 1


@dataclass(frozen=True)
class Declared:
    """What a parquet file's pages declare it becomes once read."""

    file_bytes: int
    uncompressed: int
    values: int

    @property
    def byte_bound(self) -> int:
        return min(CAP, max(FLOOR, RATIO * self.file_bytes))


def _int(v: object) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def footer(data: bytes | mmap.mmap, size: int) -> tuple[dict[int, object], list[object], int]:
    """A parquet file's FileMetaData (Thrift field id -> value), its column chunks'
    ColumnMetaData in file order (row group by row group, column by column) and the
    footer's length (_Malformed: no PAR1 at both ends, or a footer not well-formed)."""
    if size < 12 or data[:4] != b"PAR1" or data[size - 4 : size] != b"PAR1":
        raise _Malformed("not a parquet file (no PAR1 at both ends)")
    flen = int.from_bytes(data[size - 8 : size - 4], "little")
    if flen > size - 12:
        raise _Malformed("the footer's length points before the start of the file")
    meta = _Thrift(data, size - 8 - flen, size - 8, strings=True).struct()
    groups = meta.get(_FMD_ROW_GROUPS) or []
    chunks = [
        c.get(_CC_META) or {}
        for g in groups
        if isinstance(g, dict)
        for c in (g.get(_RG_COLUMNS) or [])
        if isinstance(c, dict)
    ]
    return meta, chunks, flen


def key_offsets(data: bytes | mmap.mmap, size: int, key: bytes) -> list[int]:
    """Where the footer's key_value_metadata (FileMetaData field 5, a list of KeyValue)
    holds the key ``key`` (KeyValue field 1): the byte offset in the file of each such
    key's bytes, every one (a field or a key given twice included). _Malformed as
    ``footer``."""
    _, _, flen = footer(data, size)
    walk = _Thrift(data, size - 8 - flen, size - 8)
    found: list[int] = []
    for field, kind in walk.fields():
        if field != _FMD_KEY_VALUE or kind != 9:
            walk.value(kind, 0, False)
            continue
        count, elem = walk.list_head()
        for _ in range(count):
            if elem != 12:
                raise _Malformed("key_value_metadata is not a list of structs")
            for kv_field, kv_kind in walk.fields():
                if kv_field != _KV_KEY or kv_kind != 8:
                    walk.value(kv_kind, 1, False)
                    continue
                n = walk.varint()
                start = walk.pos
                walk.skip(n)
                if data[start : start + n] == key:
                    found.append(start)
    return found


def declared(data: bytes | mmap.mmap, size: int) -> Declared:
    """The uncompressed bytes and the values a parquet file's pages declare (_Malformed:
    a footer or page header that is not well-formed, or that points outside the file)."""
    meta, chunks, flen = footer(data, size)
    footer_values = sum(_int(m.get(_CMD_NUM_VALUES)) for m in chunks if isinstance(m, dict))
    uncompressed, page_values = 0, 0
    for m in chunks:
        if not isinstance(m, dict):
            raise _Malformed("a column chunk without its metadata")
        # the chunk starts at its first page, the dictionary's if it has one (an empty
        # chunk's data offset may be left 0, as Arrow writes one)
        offsets = [
            o for o in (_int(m.get(_CMD_DATA_OFFSET)), _int(m.get(_CMD_DICT_OFFSET))) if o > 0
        ]
        start = min(offsets, default=0)
        end = start + _int(m.get(_CMD_COMPRESSED))
        if end == start:
            continue  # a chunk of no pages (a row group of no rows, as some writers leave)
        if not 4 <= start <= end <= size - 8 - flen:
            raise _Malformed(f"a column chunk at byte {start} lies outside the file's pages")
        pos = start
        while pos < end:
            walk = _Thrift(data, pos, end)
            header = walk.struct(want=True)
            raw, packed = _int(header.get(_PH_UNCOMPRESSED)), header.get(_PH_COMPRESSED)
            if not isinstance(packed, int) or packed < 0 or raw < 0:
                raise _Malformed(f"the page header at byte {pos} declares no size")
            uncompressed += raw
            for f in _PH_VALUE_HEADERS:
                sub = header.get(f)
                if isinstance(sub, dict):
                    page_values += _int(sub.get(1))
            pos = walk.pos + packed
            if pos > end:
                raise _Malformed(f"the page at byte {walk.pos} runs past its column chunk")
    # the values read: as many as the pages declare, or the footer (its chunks' counts,
    # its row count), whichever is more; a reader may trust either
    values = max(page_values, footer_values, _int(meta.get(_FMD_NUM_ROWS)))
    return Declared(size, uncompressed, values)


def read_footer(
    path: str | Path, shown: str | None = None
) -> tuple[dict[int, object], list[object], int]:
    """``footer`` of the file at ``path``, read through a read-only map of it: a FIFO,
    device or folder refused first; an empty file or a footer not well-formed
    ``unreadable``, naming ``shown`` (default: the path)."""
    name = shown or str(path)
    with open_regular(path, name) as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise AuditError("unreadable", name, "an empty file, not parquet")
        try:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return footer(data, size)
        except ValueError as e:  # a malformed footer
            raise AuditError("unreadable", name, f"not a readable parquet file ({e})") from None


def check(path: str | Path, shown: str | None = None) -> Declared:
    """Refuse a parquet file that would be read past the bound (too_large) or whose pages
    cannot be walked (unreadable); return what it declares. ``shown`` names the file in
    the refusal (default: the path). Reads the footer and the page headers only, through
    a read-only map of the file; a FIFO, device or folder is refused first."""
    name = shown or str(path)
    with open_regular(path, name) as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise AuditError("unreadable", name, "an empty file, not parquet")
        try:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                found = declared(data, size)
        except _Malformed as e:
            raise AuditError("unreadable", name, f"not a readable parquet file ({e})") from None
        except (OSError, ValueError) as e:
            raise AuditError("unreadable", name, str(e)) from None
    if found.uncompressed > found.byte_bound:
        raise AuditError(
            "too_large",
            name,
            f"its pages declare {found.uncompressed} bytes once decompressed, more than the"
            f" bound {found.byte_bound} (at most {RATIO} times the file's {size} bytes,"
            f" {FLOOR} for any file, {CAP} in all; docs/refusals.md); nothing was read",
        )
    if found.values > MAX_VALUES:
        raise AuditError(
            "too_large",
            name,
            f"it declares {found.values} values, more than the bound {MAX_VALUES}"
            " (docs/refusals.md); nothing was read",
        )
    return found
