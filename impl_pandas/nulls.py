"""nulls.csv: the permutation null of reproduced cells per measured column."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from blake3 import blake3

from .cells import Judged
from .values import format_float

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


def draw_order(seed: int, column: str, draw: int, size: int) -> list[int]:
    """pi: positions sorted by (first 8 bytes of blake3("S|c|d|i") big-endian, i)."""
    keys = [
        int.from_bytes(blake3(f"{seed}|{column}|{draw}|{i}".encode()).digest()[:8], "big")
        for i in range(size)
    ]
    return sorted(range(size), key=lambda i: (keys[i], i))


HIST_HEADER = ["column", "count", "draws"]


def histogram(column: str, counts: list[int]) -> list[list[str]]:
    """null_hist.csv rows: how many draws gave each count, counts ascending."""
    tally: dict[int, int] = {}
    for c in counts:
        tally[c] = tally.get(c, 0) + 1
    return [[column, str(c), str(tally[c])] for c in sorted(tally)]


def null_counts(column: str, jd: Judged, order: list[int], seed: int, draws: int) -> list[int]:
    """The reproducing count of every draw. `order`: positions in canonical row id order."""
    size = len(order)
    table = np.zeros((size, size), dtype=bool)
    for j in range(size):
        for k in range(size):
            table[j, k] = jd.reproduces(order[j], order[k])
    rows = np.arange(size)
    counts: list[int] = []
    for d in range(draws):
        perm = np.array(draw_order(seed, column, d, size), dtype=np.intp)
        counts.append(int(table[rows, perm].sum()) if size else 0)
    return counts


def null_line(column: str, counts: list[int], observed: int, draws: int) -> list[str]:
    """One nulls.csv row."""
    total = sum(counts)
    total_sq = sum(c * c for c in counts)
    if draws == 1:
        variance = Fraction(0)
    else:
        variance = (Fraction(total_sq) - Fraction(total * total, draws)) / (draws - 1)
    ge = sum(1 for c in counts if c >= observed)
    return [
        column,
        str(observed),
        format_float(total / draws),
        format_float(math.sqrt(float(variance))),
        str(max(counts)),
        str(ge),
        str(draws),
        format_float((1 + ge) / (1 + draws)),
    ]


def build(
    judged: dict[str, Judged],
    classes: dict[str, list[str]],
    order: list[int],
    seed: int,
    draws: int,
) -> tuple[list[list[str]], list[list[str]]]:
    """All nulls.csv rows and null_hist.csv rows, measured columns sorted by name."""
    lines: list[list[str]] = []
    hist: list[list[str]] = []
    for column in sorted(judged):
        observed = sum(1 for cls in classes[column] if cls == "reproduced")
        counts = null_counts(column, judged[column], order, seed, draws)
        lines.append(null_line(column, counts, observed, draws))
        hist.extend(histogram(column, counts))
    return lines, hist
