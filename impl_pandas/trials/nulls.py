"""nulls.csv and null_hist.csv (cells v1 permutation null, with per-row tolerances)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from blake3 import blake3

from ..values import format_float
from .judge import NOT_PUBLISHED, REPRODUCED, is_integer_tier, measure_value, published_number, tier
from .prereg import Leaderboard
from .stats import EntryStats

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


def _order(seed: int, column: str, draw: int, size: int) -> list[int]:
    keys = [
        int.from_bytes(blake3(f"{seed}|{column}|{draw}|{i}".encode()).digest()[:8], "big")
        for i in range(size)
    ]
    return sorted(range(size), key=lambda i: (keys[i], i))


def _line(column: str, counts: list[int], observed: int, draws: int) -> list[str]:
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
    board: Leaderboard,
    kinds: dict[str, str],
    frame_values: dict[str, list[Any]],
    ids: list[str],
    stats: dict[str, dict[str, EntryStats]],
    classes: dict[str, dict[str, str]],
    seed: int,
    draws: int,
) -> tuple[list[list[str]], list[list[str]]]:
    """One nulls line per measured column (by name) and its histogram lines."""
    canonical = sorted(range(len(ids)), key=lambda i: (ids[i], i))
    size = len(canonical)
    lines: list[list[str]] = []
    hist: list[list[str]] = []
    for name in sorted(board.measured):
        col = board.measured[name]
        raw = frame_values[name]
        pubs = [published_number(raw[i], kinds[name]) for i in canonical]
        row_ids = [ids[i] for i in canonical]
        recs = [
            {
                p: measure_value(stats[r][p] if r in stats else None, col.measure)[0]
                for p in col.policies
            }
            for r in row_ids
        ]
        table = np.zeros((size, size), dtype=bool)
        for j in range(size):
            if classes[name][row_ids[j]] == NOT_PUBLISHED:
                continue
            tol = col.row_tolerances.get(row_ids[j], col.tolerance)
            for k in range(size):
                table[j, k] = any(
                    is_integer_tier(tier(pubs[j], recs[k][p], tol)[0]) for p in col.policies
                )
        rows = np.arange(size)
        counts: list[int] = []
        for d in range(draws):
            perm = np.array(_order(seed, name, d, size), dtype=np.intp)
            counts.append(int(table[rows, perm].sum()) if size else 0)
        observed = sum(1 for r in row_ids if classes[name][r] == REPRODUCED)
        lines.append(_line(name, counts, observed, draws))
        tally: dict[int, int] = {}
        for c in counts:
            tally[c] = tally.get(c, 0) + 1
        hist.extend([name, str(c), str(tally[c])] for c in sorted(tally))
    return lines, hist
