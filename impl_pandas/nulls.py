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


def null_line(
    column: str, jd: Judged, order: list[int], observed: int, seed: int, draws: int
) -> list[str]:
    """One nulls.csv row. `order` lists leaderboard positions in canonical row id order."""
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
) -> list[list[str]]:
    """All nulls.csv rows, measured columns sorted by name."""
    lines: list[list[str]] = []
    for column in sorted(judged):
        observed = sum(1 for cls in classes[column] if cls == "reproduced")
        lines.append(null_line(column, judged[column], order, observed, seed, draws))
    return lines
