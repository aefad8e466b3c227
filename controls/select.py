"""Seeded selection: the prereg's portable blake3 stream, as for the permutation null.

key(i) = first 8 bytes, big-endian, of blake3(f"{seed}|{label}|{d}|{i}"); the
order sorts positions by (key, i). Controls use the control's name as label,
d = 0 to choose rows (or to reorder every instance row) and d = 1 to choose
instances within a row.
"""

from __future__ import annotations

import blake3

ROWS = 0
INSTANCES = 1


def key(seed: int, label: str, d: int, i: int) -> int:
    digest = blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def order(seed: int, label: str, d: int, n: int) -> list[int]:
    """Positions 0..n-1 in the stream's order."""
    return sorted(range(n), key=lambda i: (key(seed, label, d, i), i))


def choose(seed: int, label: str, d: int, items: list, k: int) -> list:
    """The first k items in the stream's order (items in canonical order)."""
    return [items[i] for i in order(seed, label, d, len(items))[:k]]
