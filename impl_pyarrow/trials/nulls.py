"""Permutation null per measured column (cells v1 section nulls, with row tolerances)."""

from __future__ import annotations

from fractions import Fraction

from .. import nullcount
from ..nullcount import mask_text
from ..prereg.trials import Board
from ..tiers import is_integer_tier
from .judge import (
    Judged,
    OverRuns,
    Published,
    cell_grid,
    recipe_value,
    row_tolerance,
    tier,
)
from .stats import EntryStats
from .tables import LeaderboardData
from .tries import TriesValues

# the stream, the counting and the summary lines are the leaderboard null's
# (nullcount.py); only the masks (row tolerances, unpublished rows) differ here
NULLS_HEADER, HIST_HEADER = nullcount.NULLS_HEADER, nullcount.HIST_HEADER
REPRODUCE_HEADER = nullcount.REPRODUCE_HEADER


def _masks(
    board: Board,
    column: str,
    lb: LeaderboardData,
    pubs: list[Published],
    stats: dict[tuple[str, str], EntryStats],
    over_runs: OverRuns,
    tries_values: TriesValues | None = None,
) -> list[int]:
    """Bit k of mask j: row j's published value (and tolerance) is reproduced by row k's values."""
    m = board.measured[column]
    n = len(lb.row_ids)
    recomputed: list[list[Fraction | None]] = []
    for rid in lb.row_ids:
        values: list[Fraction | None] = []
        for recipe in m.recipes:
            r = recipe_value(recipe, rid, stats, over_runs, tries_values)[0]
            values.append(None if r is None else Fraction(r))
        recomputed.append(values)
    masks: list[int] = []
    for j in range(n):
        pub = pubs[j]
        mask = 0
        if not pub.not_published and pub.value is not None:
            tol = row_tolerance(m, lb.row_ids[j])
            d = cell_grid(tol, lb.shown[column][j])
            for k in range(n):
                if any(
                    r is not None and is_integer_tier(tier(pub.value, r, tol, d, recipe.rounding))
                    for recipe, r in zip(m.recipes, recomputed[k], strict=True)
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
    over_runs: OverRuns,
    tries_values: TriesValues | None = None,
) -> tuple[list[list[str]], list[list[str]]]:
    """Rows of nulls.csv (one per measured column, by name) and of null_hist.csv."""
    rows: list[list[str]] = []
    hist: list[list[str]] = []
    n = len(lb.row_ids)
    for column in sorted(board.measured):
        masks = _masks(board, column, lb, pubs[column], stats, over_runs, tries_values)
        observed = sum(
            1
            for j in range(n)
            if not pubs[column][j].not_published
            and any(is_integer_tier(c.tier) for c in judged[column][j])
        )
        counts = nullcount.draw_counts(seed, column, masks, 0, draws)
        row, lines = nullcount.summary(column, observed, counts, draws, masks)
        rows.append(row)
        hist.extend(lines)
    return rows, hist


def reproduce_rows(
    board: Board,
    lb: LeaderboardData,
    pubs: dict[str, list[Published]],
    stats: dict[tuple[str, str], EntryStats],
    over_runs: OverRuns,
    tries_values: TriesValues | None = None,
) -> list[list[str]]:
    """Rows of reproduce.csv (section 9.1): per measured column (by name), row j's mask as text."""
    n = len(lb.row_ids)
    rows: list[list[str]] = []
    for column in sorted(board.measured):
        masks = _masks(board, column, lb, pubs[column], stats, over_runs, tries_values)
        rows.extend([column, rid, mask_text(m, n)] for rid, m in zip(lb.row_ids, masks))
    return rows
