"""Tiers, certain tiers and classes (section 8); cells, census and recovery files (section 9)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..prereg.fields import Tolerance
from ..prereg.trials import OVER_RUNS, Board, Measured, Recipe
from ..tiers import DIVERGENT, NO_DATA, is_integer_tier, threshold_tier
from ..values import format_float, format_fraction, published_decimal
from .grid import binary_digits, cell_closure, is_switch_point, to_grid
from .stats import EntryStats
from .tables import LeaderboardData
from .tries import TriesValues

# (entry, policy) -> run measure -> value (section 16.3), as overruns.compute gives it
OverRuns = dict[str, dict[str, dict[str, float | None]]]

NOT_PUBLISHED = "not_published"
UNDETERMINED = "undetermined"

CELLS_HEADER = [
    "row_id",
    "column",
    "kind",
    "policy",
    "published",
    "recomputed",
    "abs_diff",
    "tier",
    "bound",
    "certain_tier",
]
CENSUS_HEADER = ["row_id", "column", "class", "best_tier", "policies", "min_abs_diff"]
RECOVERY_HEADER = [
    "row_id",
    "column",
    "class",
    "reproducing",
    "n_reproducing",
    "exactly_one",
    "best_policies",
    "certain",
    "n_certain",
]
RECOVERY_ROWS_HEADER = [
    "row_id",
    "cells",
    "policies_all",
    "n_all",
    "exactly_one",
    "policies_all_tier0",
    "n_all_tier0",
    "policies_all_certain",
    "n_all_certain",
]


@dataclass(frozen=True)
class Published:
    """A published number: exact decimal, or none (null/NaN: not published; infinity: a claim)."""

    value: Fraction | None
    not_published: bool


def published(value: Any, typ: Any, text: bool = False) -> Published:
    """Read as in cells v1; null and NaN are not published, infinities are a divergent claim.

    `text`: a CSV column typed decimal, whose value is the printed text."""
    if value is None:
        return Published(None, True)
    if text:
        return Published(Fraction(value), False)
    if isinstance(value, float) and math.isnan(value):
        return Published(None, True)
    return Published(published_decimal(value, typ), False)


def tier(p: Fraction, r: Fraction, tol: Tolerance, d: int, rule: str = "half_even") -> str:
    """Tier 0 if P and R land on one grid point under `rule`, else the first k with
    |P - R| <= t_k."""
    if to_grid(p, d, rule) == to_grid(r, d, rule):
        return "0"
    return threshold_tier(abs(p - r), tol.tiers)


def certain_tier(
    p: Fraction, r: Fraction, b: Fraction, tol: Tolerance, d: int, rule: str = "half_even"
) -> str:
    """The tier that holds for every value in [R - b, R + b]."""
    c = to_grid(p, d, rule)
    if to_grid(r - b, d, rule) == c and to_grid(r + b, d, rule) == c:
        return "0"
    diff = abs(p - r)
    for k, t in enumerate(tol.tiers, start=1):
        if diff + b <= t:
            return str(k)
    far = not tol.tiers or diff > b + tol.tiers[-1]
    if far:
        low, high = cell_closure(c, d, rule)
        lo = max(r - b, low)
        hi = min(r + b, high)
        if lo > hi or (lo == hi and to_grid(lo, d, rule) != c):
            return DIVERGENT
    return UNDETERMINED


def printed_decimals(text: str) -> int:
    """How many digits the published text prints after its point."""
    point = text.find(".")
    return 0 if point < 0 else len(text) - point - 1


def recomputed_text(r: float, d: int, rule: str) -> str:
    """Six decimals, or every binary digit when the six-decimal text (d < 6) or the value
    sits where the rule switches, so the reader sees on which side it lies."""
    six = format_float(r)
    switch = (d < 6 and is_switch_point(Fraction(six), d, rule)) or is_switch_point(
        Fraction(r), d, rule
    )
    return binary_digits(r) if switch else six


@dataclass(frozen=True)
class Cell:
    """One measured cell under one recipe."""

    policy: str  # the recipe's label
    recomputed: float | None
    abs_diff: Fraction | None
    tier: str
    bound: float | None
    certain: str
    shown: str = ""


def judge_cell(
    pub: Published, r: float | None, b: float, tol: Tolerance, recipe: Recipe, d: int
) -> Cell:
    """Tier and certain tier of one (row, column, recipe)."""
    policy = recipe.label
    if pub.not_published:  # never no_data (section 8), whether or not R exists
        if r is None:
            return Cell(policy, None, None, NOT_PUBLISHED, None, NOT_PUBLISHED)
        return Cell(
            policy, r, None, NOT_PUBLISHED, b, NOT_PUBLISHED, recomputed_text(r, d, recipe.rounding)
        )
    if r is None:
        return Cell(policy, None, None, NO_DATA, None, NO_DATA)
    shown = recomputed_text(r, d, recipe.rounding)
    if pub.value is None:  # a published infinity: a claim no finite value meets
        return Cell(policy, r, None, DIVERGENT, b, DIVERGENT, shown)
    rq = Fraction(r)
    rule = recipe.rounding
    return Cell(
        policy,
        r,
        abs(pub.value - rq),
        tier(pub.value, rq, tol, d, rule),
        b,
        certain_tier(pub.value, rq, Fraction(b), tol, d, rule),
        shown,
    )


def recipe_value(
    recipe: Recipe,
    entry: str,
    stats: dict[tuple[str, str], EntryStats],
    over_runs: OverRuns,
    tries_values: TriesValues | None = None,
) -> tuple[float | None, float]:
    """(value, bound) of one entry under a recipe; run and tries measures have bound 0."""
    if recipe.k is not None:
        return tries_values.get((entry, recipe.policy, recipe.measure, recipe.k)), 0.0
    if recipe.measure in OVER_RUNS:
        return over_runs.get(entry, {}).get(recipe.policy, {}).get(recipe.measure), 0.0
    st = stats.get((entry, recipe.policy))
    if st is None:
        return None, 0.0
    return st.measure(recipe.measure), st.bound(recipe.measure)


def cell_grid(tol: Tolerance, shown_published: str) -> int:
    return printed_decimals(shown_published) if tol.exact_decimals is None else tol.exact_decimals


def row_tolerance(m: Measured, row_id: str) -> Tolerance:
    return m.row_tolerances.get(row_id, m.tolerance)


Judged = dict[str, list[list[Cell]]]  # column -> canonical row -> cells (listed policy order)


def judge(
    board: Board,
    lb: LeaderboardData,
    stats: dict[tuple[str, str], EntryStats],
    over_runs: OverRuns,
    tries_values: TriesValues | None = None,
) -> tuple[Judged, dict[str, list[Published]]]:
    """Every measured cell, and the published values per column (canonical row order)."""
    judged: Judged = {}
    pubs: dict[str, list[Published]] = {}
    for name, m in board.measured.items():
        text = name in lb.text_numbers
        pubs[name] = [published(v, lb.types[name], text) for v in lb.values[name]]
        rows: list[list[Cell]] = []
        for j, rid in enumerate(lb.row_ids):
            tol = row_tolerance(m, rid)
            d = cell_grid(tol, lb.shown[name][j])
            cells: list[Cell] = []
            for recipe in m.recipes:
                r, b = recipe_value(recipe, rid, stats, over_runs, tries_values)
                cells.append(judge_cell(pubs[name][j], r, b, tol, recipe, d))
            rows.append(cells)
        judged[name] = rows
    return judged, pubs


def kind_of(board: Board, name: str) -> str:
    if name in board.measured:
        return "measured"
    if name in board.structural:
        return "structural"
    return "no_antecedent"


def _f(x: float | None) -> str:
    return "" if x is None else format_float(x)


def cells_rows(board: Board, lb: LeaderboardData, judged: Judged) -> list[list[str]]:
    rows: list[list[str]] = []
    for j, rid in enumerate(lb.row_ids):
        for name in lb.names:
            kind = kind_of(board, name)
            shown = lb.shown[name][j]
            if kind != "measured":
                rows.append([rid, name, kind, "-", shown, "", "", "", "", ""])
                continue
            for c in judged[name][j]:
                diff = "" if c.abs_diff is None else format_fraction(c.abs_diff)
                rows.append(
                    [
                        rid,
                        name,
                        kind,
                        c.policy,
                        shown,
                        c.shown,
                        diff,
                        c.tier,
                        _f(c.bound),
                        c.certain,
                    ]
                )
    rows.sort(key=lambda r: (r[0], r[1], r[3]))
    return rows


def census_class(pub: Published, cells: list[Cell]) -> tuple[str, str, str, str]:
    """(class, best_tier, policies, min_abs_diff)."""
    if pub.not_published:
        return NOT_PUBLISHED, "", "", ""
    ints = [c for c in cells if is_integer_tier(c.tier)]
    diffs = [c.abs_diff for c in cells if c.abs_diff is not None]
    min_diff = format_fraction(min(diffs)) if diffs else ""
    if ints:
        best = min(int(c.tier) for c in ints)
        return "reproduced", str(best), ";".join(sorted(c.policy for c in ints)), min_diff
    if any(c.tier == DIVERGENT for c in cells):
        return DIVERGENT, "", "", min_diff
    return NO_DATA, "", "", min_diff


def census_rows(
    board: Board, lb: LeaderboardData, judged: Judged, pubs: dict[str, list[Published]]
) -> list[list[str]]:
    rows: list[list[str]] = []
    for j, rid in enumerate(lb.row_ids):
        for name in lb.names:
            kind = kind_of(board, name)
            if kind != "measured":
                rows.append([rid, name, kind, "", "", ""])
            else:
                rows.append([rid, name, *census_class(pubs[name][j], judged[name][j])])
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def _ranked(pairs: list[tuple[str, str]]) -> tuple[str, int, str]:
    """(policy:tier list sorted by (tier, policy), count, best policies) over integer tiers."""
    ints = sorted((int(t), p) for p, t in pairs if is_integer_tier(t))
    listed = ";".join(f"{p}:{t}" for t, p in ints)
    best = ""
    if ints:
        low = ints[0][0]
        best = ";".join(sorted(p for t, p in ints if t == low))
    return listed, len(ints), best


def recovery_rows(
    board: Board, lb: LeaderboardData, judged: Judged, pubs: dict[str, list[Published]]
) -> tuple[list[list[str]], list[list[str]]]:
    """Rows of recovery.csv and of recovery_rows.csv."""
    rec: list[list[str]] = []
    per_row: list[list[str]] = []
    for j, rid in enumerate(lb.row_ids):
        sets_all: list[set[str]] = []
        sets_zero: list[set[str]] = []
        sets_certain: list[set[str]] = []
        for name in board.measured:
            cells = judged[name][j]
            cls = census_class(pubs[name][j], cells)[0]
            if cls == NOT_PUBLISHED:
                rec.append([rid, name, cls, "", "", "", "", "", ""])
                continue
            listed, count, best = _ranked([(c.policy, c.tier) for c in cells])
            c_listed, c_count, _ = _ranked([(c.policy, c.certain) for c in cells])
            rec.append(
                [
                    rid,
                    name,
                    cls,
                    listed,
                    str(count),
                    _bool(count == 1),
                    best,
                    c_listed,
                    str(c_count),
                ]
            )
            sets_all.append({c.policy for c in cells if is_integer_tier(c.tier)})
            sets_zero.append({c.policy for c in cells if c.tier == "0"})
            sets_certain.append({c.policy for c in cells if is_integer_tier(c.certain)})
        if not sets_all:
            per_row.append([rid, "0", "", "", "", "", "", "", ""])
            continue
        a = sorted(set.intersection(*sets_all))
        z = sorted(set.intersection(*sets_zero))
        c = sorted(set.intersection(*sets_certain))
        per_row.append(
            [
                rid,
                str(len(sets_all)),
                ";".join(a),
                str(len(a)),
                _bool(len(a) == 1),
                ";".join(z),
                str(len(z)),
                ";".join(c),
                str(len(c)),
            ]
        )
    rec.sort(key=lambda r: (r[0], r[1]))
    per_row.sort(key=lambda r: r[0])
    return rec, per_row


def _bool(x: bool) -> str:
    return "true" if x else "false"
