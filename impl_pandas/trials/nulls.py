"""nulls.csv and null_hist.csv (cells v1 permutation null, with per-row tolerances)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import nulls as leaderboard_nulls
from ..prereg.trials import Leaderboard
from ..tiers import is_integer_tier
from ..values import format_value
from .judge import (
    NOT_PUBLISHED,
    REPRODUCED,
    RunValues,
    grid,
    published_number,
    rule_value,
    tier,
)
from .stats import EntryStats

# the permutation null's arithmetic is the leaderboard's (nulls.py): one stream,
# one nulls.csv line and histogram per column; only the table differs here
NULLS_HEADER, HIST_HEADER = leaderboard_nulls.NULLS_HEADER, leaderboard_nulls.HIST_HEADER
REPRODUCE_HEADER = leaderboard_nulls.REPRODUCE_HEADER


@dataclass
class NullTable:
    """Per measured column (by name), the N x N table of section 9.1; the row ids, canonical."""

    tables: dict[str, np.ndarray]
    row_ids: list[str]


def tables(
    board: Leaderboard,
    kinds: dict[str, str],
    frame_values: dict[str, list[Any]],
    ids: list[str],
    stats: dict[str, dict[str, EntryStats]],
    classes: dict[str, dict[str, str]],
    runs: RunValues,
) -> NullTable:
    """Cell (j, k): row j (published, with its tolerance) is reproduced by row k's values."""
    canonical = sorted(range(len(ids)), key=lambda i: (ids[i], i))
    size = len(canonical)
    row_ids = [ids[i] for i in canonical]
    out: dict[str, np.ndarray] = {}
    for name in sorted(board.measured):
        col = board.measured[name]
        raw = frame_values[name]
        pubs = [published_number(raw[i], kinds[name]) for i in canonical]
        shown = [format_value(raw[i], kinds[name]) for i in canonical]
        recs = [
            [rule_value(rule, stats.get(r), runs.get(r, {}))[0] for rule in col.rules]
            for r in row_ids
        ]
        table = np.zeros((size, size), dtype=bool)
        for j in range(size):
            if classes[name][row_ids[j]] == NOT_PUBLISHED:
                continue
            tol = col.row_tolerances.get(row_ids[j], col.tolerance)
            d = grid(tol, shown[j])
            for k in range(size):
                table[j, k] = any(
                    is_integer_tier(tier(pubs[j], rec, tol, d, rule.rounding)[0])
                    for rule, rec in zip(col.rules, recs[k], strict=True)
                )
        out[name] = table
    return NullTable(out, row_ids)


def build(
    board: Leaderboard,
    null_table: NullTable,
    classes: dict[str, dict[str, str]],
    seed: int,
    draws: int,
) -> tuple[list[list[str]], list[list[str]]]:
    """One nulls line per measured column (by name) and its histogram lines, every draw here."""
    lines: list[list[str]] = []
    hist: list[list[str]] = []
    for name in sorted(board.measured):
        table = null_table.tables[name]
        counts = leaderboard_nulls.count_draws(name, table, seed, range(draws))
        observed = sum(1 for r in null_table.row_ids if classes[name][r] == REPRODUCED)
        computable = bool(table.any())  # a table with no True: p not computable
        lines.append(leaderboard_nulls.null_line(name, counts, observed, draws, computable))
        hist.extend(leaderboard_nulls.histogram(name, counts))
    return lines, hist


def reproduce_rows(null_table: NullTable) -> list[list[str]]:
    """reproduce.csv lines (section 9.1): the table the sharded draws start from."""
    return leaderboard_nulls.reproduce_rows(null_table.tables, null_table.row_ids)
