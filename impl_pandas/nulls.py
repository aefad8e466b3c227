"""The permutation null: reproduce.csv, the draws, nulls.csv and null_hist.csv.

Everything here starts from the reproduce table of each measured column (an
N x N boolean array, published row j by recomputed row k, both in canonical
order), so the full run and the sharded commands (shards.py) share it. No
pandas: the shard commands import only numpy, blake3 and yaml.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from blake3 import blake3

from .floats import format_float

NULLS_HEADER = [
    "column",
    "observed",
    "null_mean",
    "null_sd",
    "null_max",
    "draws_ge_observed",
    "draws",
    "p",
]
HIST_HEADER = ["column", "count", "draws"]
REPRODUCE_HEADER = ["column", "row_id", "reproduced_by"]
PART_HEADER = ["column", "draw", "count"]

_ONE, _ZERO = ord("1"), ord("0")


_BLOCK = 1 << 20  # draws x positions keyed at once


def _keys(seed: int, column: str, draws: list[int], ends: list[bytes]) -> np.ndarray:
    """key(i) of each draw (rows) and position (columns): the first 8 bytes, big-endian
    unsigned, of blake3("S|c|d|i"). `ends`: the encoded positions "0" .. "N-1"."""
    digests: list[bytes] = []
    for d in draws:
        prefix = f"{seed}|{column}|{d}|".encode()
        digests.extend(blake3(prefix + end).digest(8) for end in ends)
    return np.frombuffer(b"".join(digests), dtype=">u8").reshape(len(draws), len(ends))


def count_draws(column: str, table: np.ndarray, seed: int, draws: Iterable[int]) -> list[int]:
    """count(d) for each draw d: positions j whose published value row pi[j] reproduces,
    pi the positions sorted by (key(i), i)."""
    wanted = list(draws)
    size = len(table)
    if not size:
        return [0] * len(wanted)
    ends = [str(i).encode() for i in range(size)]
    rows = np.arange(size)
    block = max(1, _BLOCK // size)
    counts: list[int] = []
    for a in range(0, len(wanted), block):
        keys = _keys(seed, column, wanted[a : a + block], ends)
        perms = np.argsort(keys, axis=1, kind="stable")  # stable: equal keys keep i ascending
        counts.extend(np.count_nonzero(table[rows, perms], axis=1).tolist())
    return counts


def observed(table: np.ndarray) -> int:
    """The identity dealing: rows whose own recomputed values reproduce them."""
    return int(np.count_nonzero(np.diagonal(table)))


def null_line(column: str, counts: list[int], seen: int, draws: int, computable: bool) -> list[str]:
    """One nulls.csv row from every draw's count.

    `computable` is False when the column's table holds no True: no dealing can
    reproduce a cell, so p is not computable and is written as an empty field."""
    total = sum(counts)
    total_sq = sum(c * c for c in counts)
    if draws == 1:
        variance = Fraction(0)
    else:
        variance = (Fraction(total_sq) - Fraction(total * total, draws)) / (draws - 1)
    ge = sum(1 for c in counts if c >= seen)
    return [
        column,
        str(seen),
        format_float(total / draws),
        format_float(math.sqrt(float(variance))),
        str(max(counts)),
        str(ge),
        str(draws),
        format_float((1 + ge) / (1 + draws)) if computable else "",
    ]


def histogram(column: str, counts: list[int]) -> list[list[str]]:
    """null_hist.csv rows: how many draws gave each count, counts ascending."""
    tally: dict[int, int] = {}
    for c in counts:
        tally[c] = tally.get(c, 0) + 1
    return [[column, str(c), str(tally[c])] for c in sorted(tally)]


def summarize(
    tables: dict[str, np.ndarray], counts: dict[str, list[int]], draws: int
) -> tuple[list[list[str]], list[list[str]]]:
    """nulls.csv rows and null_hist.csv rows, columns sorted by name.

    `counts[c]` holds count(d) of every draw d = 0 .. draws-1 (in any order)."""
    lines: list[list[str]] = []
    hist: list[list[str]] = []
    for column in sorted(tables):
        table = tables[column]
        lines.append(null_line(column, counts[column], observed(table), draws, bool(table.any())))
        hist.extend(histogram(column, counts[column]))
    return lines, hist


def build(
    tables: dict[str, np.ndarray], seed: int, draws: int
) -> tuple[list[list[str]], list[list[str]]]:
    """Every draw of every column, then nulls.csv and null_hist.csv rows."""
    counts = {c: count_draws(c, tables[c], seed, range(draws)) for c in sorted(tables)}
    return summarize(tables, counts, draws)


def reproduce_rows(tables: dict[str, np.ndarray], row_ids: list[str]) -> list[list[str]]:
    """reproduce.csv rows: per column (by name), per row j in canonical order, its N characters."""
    out: list[list[str]] = []
    for column in sorted(tables):
        chars = np.where(tables[column], _ONE, _ZERO).astype(np.uint8)
        for j, row_id in enumerate(row_ids):
            out.append([column, row_id, chars[j].tobytes().decode("ascii")])
    return out


def table_from_strings(lines: list[str]) -> np.ndarray:
    """The boolean table of a column from its reproduced_by strings (already checked: 0/1)."""
    size = len(lines)
    if not size:
        return np.zeros((0, 0), dtype=bool)
    raw = np.frombuffer("".join(lines).encode("ascii"), dtype=np.uint8)
    return (raw == _ONE).reshape(size, size)
