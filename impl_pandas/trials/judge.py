"""Tiers, certain tiers and classes (contract trials v1, section 8) and the files built on them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..values import INTEGER, format_float, format_fraction6, format_value, is_null
from .csvboard import DECIMAL
from .prereg import NO_POLICY, RUN_MEASURES, Leaderboard, Measured, Rule, Tolerance
from .rounding import exact_text, on_boundary, preimage, rounded, to_decimal
from .stats import EntryStats

# entry -> policy -> run measure -> value (None: no data), from .overruns
RunValues = dict[str, dict[str, dict[str, float | None]]]

NO_DATA = "no_data"
DIVERGENT = "divergent"
NOT_PUBLISHED = "not_published"
UNDETERMINED = "undetermined"
REPRODUCED = "reproduced"

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

# A published number: None (null or NaN: not published), "inf" (a claim) or its exact decimal.
Published = Fraction | str | None


def published_number(value: Any, kind: str) -> Published:
    """The published value read as in cells v1 (float: the decimal of its repr)."""
    if is_null(value):
        return None
    if kind == INTEGER:
        return Fraction(int(value))
    if kind == DECIMAL:  # a CSV text, compared as the decimal it prints
        return Fraction(str(value))
    x = float(value)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf"
    return Fraction(repr(x))


def measure_value(
    stats: EntryStats | None, measure: str, runs: dict[str, float | None] | None = None
) -> tuple[float | None, float | None]:
    """(recomputed, bound) of a measure for an entry; (None, None) is no data.

    `runs` holds the entry's run measures under the cell's policy (section 16.3);
    they have bound 0."""
    if measure in RUN_MEASURES:
        value = None if runs is None else runs.get(measure)
        return (None, None) if value is None else (value, 0.0)
    if stats is None:
        return None, None
    if measure == "reward_macro":
        value, bound = stats.reward_macro, stats.reward_bound
    elif measure == "reward_ci95":
        value, bound = stats.reward_ci95, stats.reward_ci95_bound
    elif measure == "pass_macro":
        value, bound = stats.pass_macro, 0.0
    elif measure == "pass_ci95":
        value, bound = stats.pass_ci95, 0.0
    else:
        value, bound = stats.task_count, 0.0
    if value is None:
        return None, None
    return value, bound


def grid(tol: Tolerance, shown: str) -> int:
    """The decimals of tier 0: the tolerance's, or the published text's own."""
    if tol.exact_decimals is not None:
        return tol.exact_decimals
    return len(shown.partition(".")[2])


def tier(
    pub: Published, rec: float | None, tol: Tolerance, d: int, rule: str = "half_even"
) -> tuple[str, Fraction | None]:
    """(tier, abs_diff) as cells v1, rounding under `rule` to d decimals; not_published
    for a null or NaN published value."""
    if pub is None:
        return NOT_PUBLISHED, None
    if rec is None:
        return NO_DATA, None
    if pub == "inf":
        return DIVERGENT, None
    assert isinstance(pub, Fraction)
    r = Fraction(rec)
    diff = abs(pub - r)
    if rounded(pub, d, rule) == rounded(rec, d, rule):
        return "0", diff
    for k, t in enumerate(tol.tiers, start=1):
        if diff <= t:
            return str(k), diff
    return DIVERGENT, diff


def certain_tier(
    pub: Published,
    rec: float | None,
    bound: float | None,
    tol: Tolerance,
    d: int,
    rule: str = "half_even",
) -> str:
    """The tier that holds for every value in [R - b, R + b] (section 8)."""
    if pub is None:
        return NOT_PUBLISHED
    if rec is None:
        return NO_DATA
    if pub == "inf":
        return DIVERGENT
    assert isinstance(pub, Fraction) and bound is not None
    r, b = Fraction(rec), Fraction(bound)
    c = rounded(pub, d, rule)
    if rounded(r - b, d, rule) == c and rounded(r + b, d, rule) == c:
        return "0"
    diff = abs(pub - r)
    for k, t in enumerate(tol.tiers, start=1):
        if diff + b <= t:
            return str(k)
    far = not tol.tiers or diff > b + tol.tiers[-1]
    low, high = preimage(c, d, rule)
    lo, hi = max(r - b, low), min(r + b, high)
    misses = lo > hi or (lo == hi and rounded(lo, d, rule) != c)
    return DIVERGENT if far and misses else UNDETERMINED


def shown_recomputed(rec: float | None, d: int, rule: str) -> str:
    """Six decimals; the exact binary value when the six-decimal text or the value itself
    lies where the rule changes its result (section 9), so a reader sees which side."""
    if rec is None:
        return ""
    text = format_float(rec)
    near = d < 6 and on_boundary(to_decimal(Fraction(text)), d, rule)
    return exact_text(rec) if near or on_boundary(to_decimal(rec), d, rule) else text


def is_integer_tier(value: str) -> bool:
    """True for tiers 0, 1, 2, ..."""
    return value.isdigit()


@dataclass(frozen=True)
class Cell:
    """One measured cell under one rule (policy, measure, rounding)."""

    policy: str  # the rule's name
    recomputed: float | None
    bound: float | None
    diff: Fraction | None
    tier: str
    certain: str
    shown: str  # the recomputed field as written


def _diff(diff: Fraction | None) -> str:
    return "" if diff is None else format_fraction6(diff)


def _float(x: float | None) -> str:
    return "" if x is None else format_float(x)


def _tolerance(col: Measured, row_id: str) -> Tolerance:
    return col.row_tolerances.get(row_id, col.tolerance)


def rule_value(
    rule: Rule, stats: dict[str, EntryStats] | None, runs: dict[str, dict[str, float | None]]
) -> tuple[float | None, float | None]:
    """(recomputed, bound) of an entry under one rule."""
    if rule.k is not None:  # pass_at_k / pass_hat_k (section 16.5), from .passk
        value = runs.get(rule.policy, {}).get(f"{rule.measure}@{rule.k}")
        return (None, None) if value is None else (value, 0.0)
    entry_stats = None if stats is None else stats[rule.policy]
    return measure_value(entry_stats, rule.measure, runs.get(rule.policy))


def judge_cells(
    col: Measured,
    row_id: str,
    pub: Published,
    shown_pub: str,
    stats: dict[str, EntryStats] | None,
    runs: dict[str, dict[str, float | None]],
) -> list[Cell]:
    """The cell of (row, column) under every rule of the column."""
    tol = _tolerance(col, row_id)
    d = grid(tol, shown_pub)
    out: list[Cell] = []
    for rule in col.rules:
        rec, bound = rule_value(rule, stats, runs)
        t, diff = tier(pub, rec, tol, d, rule.rounding)
        certain = certain_tier(pub, rec, bound, tol, d, rule.rounding)
        shown = shown_recomputed(rec, d, rule.rounding)
        out.append(Cell(rule.name, rec, bound, diff, t, certain, shown))
    return out


def census_class(cells: list[Cell]) -> str:
    """reproduced, divergent, no_data or not_published."""
    if any(c.tier == NOT_PUBLISHED for c in cells):
        return NOT_PUBLISHED
    if any(is_integer_tier(c.tier) for c in cells):
        return REPRODUCED
    if any(c.tier == DIVERGENT for c in cells):
        return DIVERGENT
    return NO_DATA


def _ranked(pairs: list[tuple[str, str]]) -> list[tuple[int, str]]:
    return sorted((int(t), p) for p, t in pairs if is_integer_tier(t))


def _recovery(row_id: str, column: str, cls: str, cells: list[Cell]) -> list[str]:
    if cls == NOT_PUBLISHED:
        return [row_id, column, cls, "", "", "", "", "", ""]
    reached = _ranked([(c.policy, c.tier) for c in cells])
    certain = _ranked([(c.policy, c.certain) for c in cells])
    best = sorted(p for t, p in reached if t == reached[0][0]) if reached else []
    return [
        row_id,
        column,
        cls,
        ";".join(f"{p}:{t}" for t, p in reached),
        str(len(reached)),
        "true" if len(reached) == 1 else "false",
        ";".join(best),
        ";".join(f"{p}:{t}" for t, p in certain),
        str(len(certain)),
    ]


def _recovery_row(row_id: str, judged: list[list[Cell]]) -> list[str]:
    counted = [cells for cells in judged if census_class(cells) != NOT_PUBLISHED]
    if not counted:
        return [row_id, "0", "", "", "", "", "", "", ""]

    def every(ok: Any) -> list[str]:
        common: set[str] | None = None
        for cells in counted:
            good = {c.policy for c in cells if ok(c)}
            common = good if common is None else common & good
        return sorted(common or set())

    all_ = every(lambda c: is_integer_tier(c.tier))
    tier0 = every(lambda c: c.tier == "0")
    sure = every(lambda c: is_integer_tier(c.certain))
    return [
        row_id,
        str(len(counted)),
        ";".join(all_),
        str(len(all_)),
        "true" if len(all_) == 1 else "false",
        ";".join(tier0),
        str(len(tier0)),
        ";".join(sure),
        str(len(sure)),
    ]


@dataclass
class Judged:
    """Everything the leaderboard files need."""

    cells: list[list[str]]
    census: list[list[str]]
    recovery: list[list[str]]
    recovery_rows: list[list[str]]
    classes: dict[str, dict[str, str]]  # column -> row id -> census class


def build(
    board: Leaderboard,
    names: list[str],
    kinds: dict[str, str],
    frame_values: dict[str, list[Any]],
    ids: list[str],
    stats: dict[str, dict[str, EntryStats]],
    runs: RunValues,
) -> Judged:
    """cells, census, recovery and recovery_rows lines (sorted)."""
    kind_of = board.kind_of()
    out = Judged([], [], [], [], {name: {} for name in board.measured})
    per_row: dict[str, list[list[Cell]]] = {row_id: [] for row_id in ids}
    for name in names:
        kind = kind_of[name]
        raw = frame_values[name]
        for i, row_id in enumerate(ids):
            shown = format_value(raw[i], kinds[name])
            if kind != "measured":
                out.cells.append([row_id, name, kind, NO_POLICY, shown, "", "", "", "", ""])
                out.census.append([row_id, name, kind, "", "", ""])
                continue
            col = board.measured[name]
            pub = published_number(raw[i], kinds[name])
            cells = judge_cells(col, row_id, pub, shown, stats.get(row_id), runs.get(row_id, {}))
            per_row[row_id].append(cells)
            for c in cells:
                out.cells.append(
                    [
                        row_id,
                        name,
                        "measured",
                        c.policy,
                        shown,
                        c.shown,
                        _diff(c.diff),
                        c.tier,
                        _float(c.bound),
                        c.certain,
                    ]
                )
            cls = census_class(cells)
            out.classes[name][row_id] = cls
            diffs = [c.diff for c in cells if c.diff is not None]
            if cls == NOT_PUBLISHED:
                out.census.append([row_id, name, cls, "", "", ""])
            else:
                reached = _ranked([(c.policy, c.tier) for c in cells])
                out.census.append(
                    [
                        row_id,
                        name,
                        cls,
                        str(reached[0][0]) if reached else "",
                        ";".join(sorted(p for _, p in reached)),
                        _diff(min(diffs)) if diffs else "",
                    ]
                )
            out.recovery.append(_recovery(row_id, name, cls, cells))
    out.recovery_rows = [_recovery_row(row_id, per_row[row_id]) for row_id in ids]
    out.cells.sort(key=lambda r: (r[0], r[1], r[3]))
    out.census.sort(key=lambda r: (r[0], r[1]))
    out.recovery.sort(key=lambda r: (r[0], r[1]))
    out.recovery_rows.sort(key=lambda r: r[0])
    return out
