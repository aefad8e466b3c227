"""A strict walk over a parquet footer (Thrift compact protocol) before fastparquet reads it.

fastparquet's Thrift reader is lenient: on a field type it does not know it
prints a note and carries on, and it never checks that a length stays inside
the buffer. A corrupted footer could then be read as some other, valid-looking
table. This walk reads nothing into memory; it only checks that the footer is
one well-formed struct that ends exactly where the footer ends.
"""

from __future__ import annotations

from typing import Any

# Thrift compact protocol type codes.
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
_MAX_DEPTH = 64


class FooterError(ValueError):
    """The footer is not one well-formed Thrift struct."""


class _Walk:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise FooterError(f"footer ends inside a value (byte {self.pos})")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def skip(self, n: int) -> None:
        if n < 0 or self.pos + n > len(self.data):
            raise FooterError(f"a length at byte {self.pos} runs past the footer")
        self.pos += n

    def varint(self) -> int:
        value = 0
        for shift in range(0, 70, 7):
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
        raise FooterError(f"a variable-length integer at byte {self.pos} is too long")

    def value(self, kind: int, depth: int, in_container: bool) -> None:
        if kind in (_TRUE, _FALSE):
            if in_container:
                self.byte()
        elif kind == _BYTE:
            self.byte()
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.skip(8)
        elif kind == _BINARY:
            self.skip(self.varint())
        elif kind in (_LIST, _SET):
            head = self.byte()
            size = head >> 4
            if size == 15:
                size = self.varint()
            self.items(size, [head & 0x0F], depth)
        elif kind == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                self.items(size, [types >> 4, types & 0x0F], depth)
        elif kind == _STRUCT:
            self.struct(depth + 1)
        else:
            raise FooterError(f"unknown field type {kind} at byte {self.pos}")

    def items(self, size: int, kinds: list[int], depth: int) -> None:
        if size > len(self.data) - self.pos:  # every element takes at least one byte
            raise FooterError(f"a collection at byte {self.pos} claims {size} elements")
        for _ in range(size):
            for kind in kinds:
                self.value(kind, depth, in_container=True)

    def struct(self, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise FooterError("structs nested too deeply")
        while True:
            head = self.byte()
            if head == 0:  # stop
                return
            if head >> 4 == 0:  # long form: the field id follows
                self.varint()
            self.value(head & 0x0F, depth, in_container=False)


def check_footer(data: bytes) -> None:
    """Raise FooterError unless ``data`` is exactly one well-formed Thrift struct."""
    walk = _Walk(data)
    walk.struct(0)
    if walk.pos != len(data):
        raise FooterError(f"footer holds {len(data) - walk.pos} byte(s) after its struct")


class Thrift(_Walk):
    """A Thrift compact struct read into {field id: value} (nested structs as dicts)."""

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def read_value(self, kind: int, depth: int) -> Any:
        if kind in (1, 2):
            return kind == 1
        if kind in (3, 4, 5, 6):
            return self.byte() if kind == 3 else self.zigzag()
        if kind == 12:
            return self.read_struct(depth + 1)
        if kind == 8:  # binary
            size = self.varint()
            start = self.pos
            self.skip(size)
            return self.data[start : self.pos]
        if kind in (9, 10):  # list, set
            head = self.byte()
            size = head >> 4
            if size == 15:
                size = self.varint()
            if size > len(self.data) - self.pos:
                raise FooterError(f"a list at byte {self.pos} claims {size} elements")
            elem = head & 0x0F
            if elem in (1, 2):  # booleans in a list: one byte each
                return [self.byte() == 1 for _ in range(size)]
            return [self.read_value(elem, depth) for _ in range(size)]
        start = self.pos
        self.value(kind, depth, in_container=False)  # doubles, maps: skipped, checked
        return self.data[start : self.pos]

    def read_struct(self, depth: int = 0) -> dict[int, Any]:
        if depth > _MAX_DEPTH:
            raise FooterError("structs nested too deeply")
        out: dict[int, Any] = {}
        last = 0
        while True:
            head = self.byte()
            if head == 0:
                return out
            delta = head >> 4
            field = last + delta if delta else self.zigzag()
            out[field] = self.read_value(head & 0x0F, depth)
            last = field


def top_level_names(data: bytes) -> list[str]:
    """The top-level column names of a footer (FileMetaData), in file order, repeats kept.

    Read here rather than by fastparquet, which cannot open a file that gives two
    columns one name (the duplicate_column check must see both)."""
    schema = Thrift(data).read_struct().get(2, [])
    names: list[str] = []
    i = 1

    def subtree_end(j: int) -> int:
        k = j + 1
        for _ in range(schema[j].get(5, 0) or 0):
            k = subtree_end(k)
        return k

    for _ in range((schema[0].get(5, 0) or 0) if schema else 0):
        names.append(schema[i][4].decode("utf-8"))
        i = subtree_end(i)
    return names
