"""Permutation null per measured column (cells v1 section nulls, with row tolerances)."""

from __future__ import annotations

import math
from fractions import Fraction

from blake3 import blake3

from ..values import format_float
from .judge import Judged, Published, is_integer_tier, row_tolerance, tier
from .spec import Board
from .stats import EntryStats
from .tables import LeaderboardData

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


def permutation(seed: int, column: str, draw: int, n: int) -> list[int]:
    """Positions sorted by (key(i), i); key(i) = first 8 bytes of blake3, big-endian."""
    keys = [
        int.from_bytes(blake3(f"{seed}|{column}|{draw}|{i}".encode()).digest()[:8], "big")
        for i in range(n)
    ]
    return sorted(range(n), key=lambda i: (keys[i], i))


def _masks(
    board: Board,
    column: str,
    lb: LeaderboardData,
    pubs: list[Published],
    stats: dict[tuple[str, str], EntryStats],
) -> list[int]:
    """Bit k of mask j: row j's published value (and tolerance) is reproduced by row k's values."""
    m = board.measured[column]
    n = len(lb.row_ids)
    recomputed: list[list[Fraction | None]] = []
    for rid in lb.row_ids:
        values: list[Fraction | None] = []
        for p in m.policies:
            st = stats.get((rid, p))
            r = None if st is None else st.measure(m.measure)
            values.append(None if r is None else Fraction(r))
        recomputed.append(values)
    masks: list[int] = []
    for j in range(n):
        pub = pubs[j]
        mask = 0
        if not pub.not_published and pub.value is not None:
            tol = row_tolerance(m, lb.row_ids[j])
            for k in range(n):
                if any(
                    r is not None and is_integer_tier(tier(pub.value, r, tol))
                    for r in recomputed[k]
                ):
                    mask |= 1 << k
        masks.append(mask)
    return masks


def nulls_rows(
    board: Board,
    lb: LeaderboardData,
    judged: Judged,
    pubs: dict[str, list[Published]],
    stats: dict[tuple[str, str], EntryStats],
    seed: int,
    draws: int,
) -> tuple[list[list[str]], list[list[str]]]:
    """Rows of nulls.csv (one per measured column, by name) and of null_hist.csv."""
    rows: list[list[str]] = []
    hist: list[list[str]] = []
    n = len(lb.row_ids)
    for column in sorted(board.measured):
        masks = _masks(board, column, lb, pubs[column], stats)
        observed = sum(
            1
            for j in range(n)
            if not pubs[column][j].not_published
            and any(is_integer_tier(c.tier) for c in judged[column][j])
        )
        counts: list[int] = []
        for d in range(draws):
            perm = permutation(seed, column, d, n)
            counts.append(sum((masks[j] >> perm[j]) & 1 for j in range(n)))
        tally: dict[int, int] = {}
        for c in counts:
            tally[c] = tally.get(c, 0) + 1
        hist.extend([column, str(c), str(tally[c])] for c in sorted(tally))
        total = sum(counts)
        squares = sum(c * c for c in counts)
        mean = float(total) / float(draws)
        var = (
            Fraction(0)
            if draws == 1
            else (Fraction(squares) - Fraction(total * total, draws)) / (draws - 1)
        )
        ge = sum(1 for c in counts if c >= observed)
        rows.append(
            [
                column,
                str(observed),
                format_float(mean),
                format_float(math.sqrt(float(var))),
                str(max(counts)),
                str(ge),
                str(draws),
                format_float(float(1 + ge) / float(1 + draws)),
            ]
        )
    return rows, hist
