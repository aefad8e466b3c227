"""Seeded selection: the prereg's portable blake3 stream, as for the permutation null.

key(i) = first 8 bytes, big-endian, of blake3(f"{seed}|{label}|{d}|{i}"); the
order sorts positions by (key, i). Controls use the control's name as label,
d = 0 to choose rows and d = 1 to choose instances within a row.

A reorder of every instance row (millions of them) takes its keys from one
extendable output instead of one hash per row: key(i) = bytes 8i .. 8i+7,
big-endian, of the blake3 output of f"{seed}|{label}|reorder" read to 8n bytes
(``stream_keys``); the order is again by (key, i).
"""

from __future__ import annotations

import array
import sys

import blake3

ROWS = 0
INSTANCES = 1


def key(seed: int, label: str, d: int, i: int) -> int:
    digest = blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def keys(seed: int, label: str, d: int, n: int) -> list[int]:
    """key(seed, label, d, i) for i = 0..n-1 (the prefix encoded once)."""
    prefix = f"{seed}|{label}|{d}|".encode()
    return [
        int.from_bytes(blake3.blake3(prefix + str(i).encode()).digest()[:8], "big")
        for i in range(n)
    ]


def stream_keys(seed: int, label: str, n: int) -> array.array:
    """The reorder's key(i), i = 0..n-1, as unsigned 64-bit integers (see above)."""
    words = array.array("Q")
    assert words.itemsize == 8
    words.frombytes(blake3.blake3(f"{seed}|{label}|reorder".encode()).digest(length=8 * n))
    if sys.byteorder == "little":
        words.byteswap()  # the bytes are read big-endian whatever the machine
    return words


def order(seed: int, label: str, d: int, n: int) -> list[int]:
    """Positions 0..n-1 in the stream's order: by (key, i).

    A stable sort by key alone keeps equal keys in i order, without a tuple per
    position (which matters when every instance row is reordered)."""
    k = keys(seed, label, d, n)
    return sorted(range(n), key=k.__getitem__)


def choose(seed: int, label: str, d: int, items: list, k: int) -> list:
    """The first k items in the stream's order (items in canonical order)."""
    return [items[i] for i in order(seed, label, d, len(items))[:k]]
