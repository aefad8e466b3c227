"""Permutation null: how many cells reproduce when recomputed values go to the wrong rows."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import Any

from blake3 import blake3

from .cells import Judged, Leaderboard, published_key
from .prereg import Measured, Prereg
from .recipes import Recomputed
from .tiers import is_integer_tier, round_half_even
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


def permutation(seed: int, column: str, draw: int, n: int) -> list[int]:
    """Positions sorted by (key(i), i), key(i) = first 8 bytes of blake3, big-endian."""
    prefix = f"{seed}|{column}|{draw}|".encode()
    keys = [int.from_bytes(blake3(prefix + str(i).encode()).digest()[:8], "big") for i in range(n)]
    return sorted(range(n), key=keys.__getitem__)  # stable: ties keep i order


def _numeric_masks(
    published: list[Fraction | None],
    recomputed: list[float | None],
    decimals: int,
    tiers: tuple[Fraction, ...],
) -> list[int]:
    """Bit k of mask j: some integer tier, i.e. equal at `decimals` or |P - R| <= max tier."""
    present = [(Fraction(r), k) for k, r in enumerate(recomputed) if r is not None]
    present.sort()
    values = [r for r, _ in present]
    by_rounded: dict[int, int] = {}
    for r, k in present:
        key = round_half_even(r, decimals)
        by_rounded[key] = by_rounded.get(key, 0) | (1 << k)
    widest = max(tiers) if tiers else None
    masks: list[int] = []
    for p in published:
        mask = 0
        if p is not None:
            mask = by_rounded.get(round_half_even(p, decimals), 0)
            if widest is not None and widest >= 0:
                lo = bisect_left(values, p - widest)
                hi = bisect_right(values, p + widest)
                for _, k in present[lo:hi]:
                    mask |= 1 << k
        masks.append(mask)
    return masks


def _string_masks(published: list[str | None], recomputed: list[str | None]) -> list[int]:
    """Bit k of mask j: row k's recomputed string equals row j's published one."""
    by_value: dict[str, int] = {}
    for k, r in enumerate(recomputed):
        if r is not None:
            by_value[r] = by_value.get(r, 0) | (1 << k)
    return [0 if p is None else by_value.get(p, 0) for p in published]


def reproduce_masks(m: Measured, lb: Leaderboard, rec: list[dict[str, Any]]) -> list[int]:
    """masks[j] bit k: row j's published value is reproduced by row k's recomputed values."""
    n = len(lb.row_ids)
    published = [published_key(m, lb, j) for j in range(n)]
    masks = [0] * n
    for p in m.policies:
        column = [rec[k][p] for k in range(n)]
        if m.recipe == "single_value":
            more = _string_masks(published, column)
        else:
            assert m.tolerance is not None
            more = _numeric_masks(published, column, m.tolerance.exact_decimals, m.tolerance.tiers)
        masks = [a | b for a, b in zip(masks, more)]
    return masks


HIST_HEADER = ["column", "count", "draws"]


def null_row(
    pr: Prereg,
    lb: Leaderboard,
    rec: Recomputed,
    column: str,
    judged: list[list[Judged]],
    hist: list[list[str]],
) -> list[str]:
    """One line of nulls.csv; appends the column's lines of null_hist.csv to ``hist``."""
    n = len(lb.row_ids)
    draws = pr.null_draws
    masks = reproduce_masks(pr.measured[column], lb, rec[column])
    observed = sum(1 for cell in judged if any(is_integer_tier(c.tier) for c in cell))
    counts: list[int] = []
    for d in range(draws):
        perm = permutation(pr.seed, column, d, n)
        counts.append(sum((masks[j] >> perm[j]) & 1 for j in range(n)))
    tally: dict[int, int] = {}
    for c in counts:
        tally[c] = tally.get(c, 0) + 1
    hist.extend([column, str(c), str(tally[c])] for c in sorted(tally))
    total = sum(counts)
    squares = sum(c * c for c in counts)
    mean = float(total) / float(draws)
    if draws == 1:
        var = Fraction(0)
    else:
        var = (Fraction(squares) - Fraction(total * total, draws)) / (draws - 1)
    sd = math.sqrt(float(var))
    ge = sum(1 for c in counts if c >= observed)
    p = float(1 + ge) / float(1 + draws)
    return [
        column,
        str(observed),
        format_float(mean),
        format_float(sd),
        str(max(counts)),
        str(ge),
        str(draws),
        format_float(p),
    ]


def nulls_rows(
    pr: Prereg,
    lb: Leaderboard,
    rec: Recomputed,
    judged: dict[str, list[list[Judged]]],
) -> tuple[list[list[str]], list[list[str]]]:
    """Rows of nulls.csv (one per measured column, by name) and of null_hist.csv."""
    hist: list[list[str]] = []
    rows = [null_row(pr, lb, rec, c, judged[c], hist) for c in sorted(pr.measured)]
    return rows, hist
