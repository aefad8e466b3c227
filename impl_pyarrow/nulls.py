"""Permutation null: how many cells reproduce when recomputed values go to the wrong rows."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import Any

from .cells import Leaderboard, published_key
from .nullcount import draw_counts, mask_text, observed, summary
from .prereg.cells import Measured, Prereg
from .prereg.fields import Tolerance
from .recipes import Recomputed
from .tiers import cell_bounds, cell_decimals, round_half_even


def _numeric_masks(
    published: list[Fraction | None], recomputed: list[float | None], tol: Tolerance
) -> list[int]:
    """Bit k of mask j: some integer tier, i.e. R rounded at cell j's decimals is P, or
    |P - R| <= cell j's widest bound."""
    present = [(Fraction(r), k) for k, r in enumerate(recomputed) if r is not None]
    present.sort()
    values = [r for r, _ in present]
    at_decimals: dict[int, dict[Fraction, int]] = {}  # per judged decimals: rounded R -> rows
    masks: list[int] = []
    for p in published:
        mask = 0
        if p is not None:
            d = cell_decimals(p, tol)
            if d not in at_decimals:
                found: dict[Fraction, int] = {}
                for r, k in present:
                    key = Fraction(round_half_even(r, d), 10**d)
                    found[key] = found.get(key, 0) | (1 << k)
                at_decimals[d] = found
            mask = at_decimals[d].get(p, 0)
            bounds = cell_bounds(d, tol)
            if bounds:
                lo = bisect_left(values, p - bounds[-1])
                hi = bisect_right(values, p + bounds[-1])
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
            more = _numeric_masks(published, column, m.tolerance)
        masks = [a | b for a, b in zip(masks, more)]
    return masks


def column_masks(pr: Prereg, lb: Leaderboard, rec: Recomputed) -> dict[str, list[int]]:
    """The reproduce masks of every measured column, columns sorted by name."""
    return {c: reproduce_masks(pr.measured[c], lb, rec[c]) for c in sorted(pr.measured)}


def reproduce_rows(lb: Leaderboard, masks: dict[str, list[int]]) -> list[list[str]]:
    """Rows of reproduce.csv: per column (by name), per canonical row, its N characters."""
    n = len(lb.row_shown)
    return [
        [column, rid, mask_text(mask, n)]
        for column, col_masks in masks.items()
        for rid, mask in zip(lb.row_shown, col_masks)
    ]


def nulls_rows(pr: Prereg, masks: dict[str, list[int]]) -> tuple[list[list[str]], list[list[str]]]:
    """Rows of nulls.csv (one per measured column, by name) and of null_hist.csv."""
    rows: list[list[str]] = []
    hist: list[list[str]] = []
    for column, col_masks in masks.items():
        counts = draw_counts(pr.seed, column, col_masks, 0, pr.null_draws)
        row, more = summary(column, observed(col_masks), counts, pr.null_draws, col_masks)
        rows.append(row)
        hist.extend(more)
    return rows, hist
