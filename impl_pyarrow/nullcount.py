"""Counting and summarising the permutation null's draws (pure Python + blake3, no Arrow).

Shared by the full recompute (impl_pyarrow.nulls) and the sharded draws
(impl_pyarrow.shards), so a merged null is the full run's byte for byte.

A column's null is fixed by its reproduce table: masks[j] has bit k set when
row k's recomputed values reproduce row j's published value (rows in canonical
order); in reproduce.csv that mask is written as N characters, character k
being bit k.
"""

from __future__ import annotations

import math
from fractions import Fraction

from blake3 import blake3

from .formatting import format_float

REPRODUCE_HEADER = ["column", "row_id", "reproduced_by"]
PART_HEADER = ["column", "draw", "count"]
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


def mask_text(mask: int, n: int) -> str:
    """The N characters of a mask: character k is `1` when bit k is set."""
    if n == 0:
        return ""
    return format(mask, f"0{n}b")[::-1]


def text_mask(text: str) -> int:
    """The mask of N characters of `0` / `1` (character k is bit k)."""
    return int(text[::-1], 2) if text else 0


def observed(masks: list[int]) -> int:
    """Rows whose own recomputed values reproduce their published value (the identity dealing)."""
    return sum((mask >> j) & 1 for j, mask in enumerate(masks))


_SUFFIXES: list[bytes] = []  # str(i).encode() for i = 0, 1, ...


def _suffixes(n: int) -> list[bytes]:
    """The positions' decimal digits, as bytes, for i < n (kept between draws)."""
    while len(_SUFFIXES) < n:
        _SUFFIXES.append(str(len(_SUFFIXES)).encode())
    return _SUFFIXES[:n]


def permutation(seed: int, column: str, draw: int, n: int) -> list[int]:
    """Positions sorted by (key(i), i), key(i) = first 8 bytes of blake3, big-endian.

    The 8 bytes are compared as bytes: for equal lengths that is the order of
    the big-endian unsigned integers. `digest(8)` is the first 8 bytes of the
    digest (BLAKE3's output of any length extends the shorter ones)."""
    prefix = f"{seed}|{column}|{draw}|".encode()
    keys = [blake3(prefix + suffix).digest(8) for suffix in _suffixes(n)]
    return sorted(range(n), key=keys.__getitem__)  # stable: ties keep i order


def draw_counts(seed: int, column: str, masks: list[int], start: int, stop: int) -> list[int]:
    """count(d) for start <= d < stop: positions j whose published value row perm[j] reproduces."""
    n = len(masks)
    if not any(masks):  # no row reproduces any: every dealing counts 0
        return [0] * (stop - start)
    counts: list[int] = []
    for d in range(start, stop):
        perm = permutation(seed, column, d, n)
        counts.append(sum([(mask >> k) & 1 for mask, k in zip(masks, perm)]))
    return counts


def summary(
    column: str, observed_count: int, counts: list[int], draws: int, masks: list[int]
) -> tuple[list[str], list[list[str]]]:
    """(line of nulls.csv, lines of null_hist.csv) of one column from its D counts.

    With no bit set in any of the column's masks no dealing reproduces a cell:
    p is then not computable, and its field is left empty."""
    tally: dict[int, int] = {}
    for c in counts:
        tally[c] = tally.get(c, 0) + 1
    hist = [[column, str(c), str(tally[c])] for c in sorted(tally)]
    total = sum(counts)
    squares = sum(c * c for c in counts)
    mean = float(total) / float(draws)
    if draws == 1:
        var = Fraction(0)
    else:
        var = (Fraction(squares) - Fraction(total * total, draws)) / (draws - 1)
    sd = math.sqrt(float(var))
    ge = sum(1 for c in counts if c >= observed_count)
    p = format_float(float(1 + ge) / float(1 + draws)) if any(masks) else ""
    row = [
        column,
        str(observed_count),
        format_float(mean),
        format_float(sd),
        str(max(counts)),
        str(ge),
        str(draws),
        p,
    ]
    return row, hist
