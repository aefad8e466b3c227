"""Tiers, certain tiers and classes (contract trials v1, section 8) and the files built on them."""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pandas as pd

from ..floats import format_float, format_float_or_empty
from ..prereg.common import NO_POLICY, Tolerance
from ..prereg.trials import RUN_MEASURES, Leaderboard, Measured, Rule
from ..tiers import DIVERGENT, NO_DATA, format_abs_diff
from ..values import INTEGER, format_value, is_null
from .csvboard import DECIMAL
from .rounding import exact_text, on_boundary, preimage, rounded, to_decimal
from .stats import EntryStats

# entry -> policy -> run measure -> value (None: no data), from .overruns
RunValues = dict[str, dict[str, dict[str, float | None]]]

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


def _first_tier(gap: Fraction, tiers: tuple[Fraction, ...] | list[Fraction]) -> str:
    """The smallest k >= 1 with gap <= t_k (tiers strictly increase), else divergent."""
    k = bisect.bisect_left(tiers, gap)
    return DIVERGENT if k == len(tiers) else str(k + 1)


def _unjudged(pub: Published, rec: float | None) -> str | None:
    """The tier of a cell that has no difference to measure, or None."""
    if pub is None:
        return NOT_PUBLISHED
    if rec is None:
        return NO_DATA
    return DIVERGENT if pub == "inf" else None


def tier(
    pub: Published, rec: float | None, tol: Tolerance, d: int, rule: str = "half_even"
) -> tuple[str, Fraction | None]:
    """(tier, abs_diff) as cells v1, rounding under `rule` to d decimals; not_published
    for a null or NaN published value."""
    fixed = _unjudged(pub, rec)
    if fixed is not None:
        return fixed, None
    assert isinstance(pub, Fraction) and rec is not None
    diff = abs(pub - Fraction(rec))
    same_point = rounded(pub, d, rule) == rounded(rec, d, rule)
    return ("0" if same_point else _first_tier(diff, tol.tiers)), diff


def certain_tier(
    pub: Published,
    rec: float | None,
    bound: float | None,
    tol: Tolerance,
    d: int,
    rule: str = "half_even",
) -> str:
    """The tier that holds for every value in [R - b, R + b] (section 8)."""
    fixed = _unjudged(pub, rec)
    if fixed is not None:
        return fixed
    assert isinstance(pub, Fraction) and rec is not None and bound is not None
    r, b = Fraction(rec), Fraction(bound)
    target = rounded(pub, d, rule)
    if {rounded(r - b, d, rule), rounded(r + b, d, rule)} == {target}:
        return "0"
    diff = abs(pub - r)
    sure = _first_tier(diff + b, tol.tiers)
    if sure != DIVERGENT:
        return sure
    # divergent only if no value of the interval is within the last tier and none
    # rounds to the published grid point
    within_last = bool(tol.tiers) and diff <= b + tol.tiers[-1]
    low, high = preimage(target, d, rule)
    lo, hi = max(r - b, low), min(r + b, high)
    meets = lo < hi or (lo == hi and rounded(lo, d, rule) == target)
    return UNDETERMINED if within_last or meets else DIVERGENT


def shown_recomputed(rec: float | None, d: int, rule: str) -> str:
    """Six decimals; the exact binary value when the six-decimal text or the value itself
    lies where the rule changes its result (section 9), so a reader sees which side."""
    if rec is None:
        return ""
    text = format_float(rec)
    near = d < 6 and on_boundary(to_decimal(Fraction(text)), d, rule)
    return exact_text(rec) if near or on_boundary(to_decimal(rec), d, rule) else text


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


@dataclass
class Judged:
    """Everything the leaderboard files need."""

    cells: list[list[str]]
    census: list[list[str]]
    recovery: list[list[str]]
    recovery_rows: list[list[str]]
    classes: dict[str, dict[str, str]]  # column -> row id -> census class


def _joined(items: Any) -> str:
    return ";".join(items)


def _reached(group: pd.DataFrame, col: str) -> pd.DataFrame:
    """The group's cells with an integer tier in `col`, by (tier, policy)."""
    hit = group[group[col].str.isdigit()]
    return hit.assign(level=hit[col].astype(int)).sort_values(["level", "policy"])


def _census_and_recovery(group: pd.DataFrame) -> pd.Series:
    """Class, census fields and recovery fields of one (row, column)."""
    tiers = group["tier"]
    if tiers.eq(NOT_PUBLISHED).any():
        return pd.Series({"class": NOT_PUBLISHED, "census": ["", "", ""], "recovery": [""] * 6})
    hit = _reached(group, "tier")
    sure = _reached(group, "certain")
    if len(hit):
        cls = REPRODUCED
    else:
        cls = DIVERGENT if tiers.eq(DIVERGENT).any() else NO_DATA
    diffs = group["diff"].dropna()
    best = hit[hit["level"] == hit["level"].min()]["policy"] if len(hit) else []
    census = [
        str(hit["level"].iloc[0]) if len(hit) else "",
        _joined(sorted(hit["policy"])),
        format_abs_diff(min(diffs)) if len(diffs) else "",
    ]
    recovery = [
        _joined(f"{p}:{t}" for p, t in zip(hit["policy"], hit["level"], strict=True)),
        str(len(hit)),
        "true" if len(hit) == 1 else "false",
        _joined(sorted(best)),
        _joined(f"{p}:{t}" for p, t in zip(sure["policy"], sure["level"], strict=True)),
        str(len(sure)),
    ]
    return pd.Series({"class": cls, "census": census, "recovery": recovery})


def _policies_in_every(cells: pd.DataFrame, good: pd.Series, counted: pd.Series) -> pd.Series:
    """Row id -> the policies good in every counted column of the row (sorted)."""
    hits = cells.loc[good, ["row_id", "column", "policy"]].drop_duplicates()
    per_policy = hits.groupby(["row_id", "policy"]).size().rename("n").reset_index()
    per_policy = per_policy[per_policy["n"].to_numpy() == counted[per_policy["row_id"]].to_numpy()]
    return per_policy.sort_values("policy").groupby("row_id")["policy"].agg(list)


def _recovery_rows(cells: pd.DataFrame, classes: pd.Series, ids: list[str]) -> list[list[str]]:
    """recovery_rows lines: per row, the policies that reach a tier in every counted column."""
    kept = classes[classes != NOT_PUBLISHED]
    counted = kept.groupby(level="row_id").size().reindex(ids, fill_value=0)
    in_counted = pd.MultiIndex.from_frame(cells[["row_id", "column"]]).isin(kept.index)
    wanted = {
        "all": in_counted & cells["tier"].str.isdigit().to_numpy(),
        "tier0": in_counted & (cells["tier"] == "0").to_numpy(),
        "certain": in_counted & cells["certain"].str.isdigit().to_numpy(),
    }
    found = {
        k: _policies_in_every(cells, pd.Series(v, index=cells.index), counted)
        for k, v in wanted.items()
    }
    lines = []
    for row_id in ids:
        if counted[row_id] == 0:
            lines.append([row_id, "0", "", "", "", "", "", "", ""])
            continue
        every = {k: found[k].get(row_id, []) for k in wanted}
        lines.append(
            [
                row_id,
                str(counted[row_id]),
                _joined(every["all"]),
                str(len(every["all"])),
                "true" if len(every["all"]) == 1 else "false",
                _joined(every["tier0"]),
                str(len(every["tier0"])),
                _joined(every["certain"]),
                str(len(every["certain"])),
            ]
        )
    return lines


def build(
    board: Leaderboard,
    names: list[str],
    kinds: dict[str, str],
    frame_values: dict[str, list[Any]],
    ids: list[str],
    stats: dict[str, dict[str, EntryStats]],
    runs: RunValues,
) -> Judged:
    """cells, census, recovery and recovery_rows lines (sorted).

    Every measured cell under every rule becomes a row of one frame; the census,
    recovery and recovery_rows files are group-bys of that frame."""
    kind_of = board.kind_of()
    out = Judged([], [], [], [], {name: {} for name in board.measured})
    judged: list[dict[str, Any]] = []
    for name in names:
        kind = kind_of[name]
        for row_id, raw in zip(ids, frame_values[name], strict=True):
            shown = format_value(raw, kinds[name])
            if kind != "measured":
                out.cells.append([row_id, name, kind, NO_POLICY, shown, "", "", "", "", ""])
                out.census.append([row_id, name, kind, "", "", ""])
                continue
            pub = published_number(raw, kinds[name])
            for c in judge_cells(
                board.measured[name], row_id, pub, shown, stats.get(row_id), runs.get(row_id, {})
            ):
                judged.append({"row_id": row_id, "column": name, "published": shown, **vars(c)})
    if judged:
        cells = pd.DataFrame(judged, dtype=object)  # None stays None (no NaN)
        out.cells += [
            [
                r.row_id,
                r.column,
                "measured",
                r.policy,
                r.published,
                r.shown,
                format_abs_diff(r.diff),
                r.tier,
                format_float_or_empty(r.bound),
                r.certain,
            ]
            for r in cells.itertuples(index=False)
        ]
        per_cell = cells.groupby(["row_id", "column"], sort=False).apply(
            _census_and_recovery, include_groups=False
        )
        for (row_id, name), r in per_cell.iterrows():
            out.classes[name][row_id] = r["class"]
            out.census.append([row_id, name, r["class"], *r["census"]])
            out.recovery.append([row_id, name, r["class"], *r["recovery"]])
        out.recovery_rows = _recovery_rows(cells, per_cell["class"], ids)
    else:
        out.recovery_rows = [[row_id, "0", "", "", "", "", "", "", ""] for row_id in ids]
    out.cells.sort(key=lambda r: (r[0], r[1], r[3]))
    out.census.sort(key=lambda r: (r[0], r[1]))
    out.recovery.sort(key=lambda r: (r[0], r[1]))
    out.recovery_rows.sort(key=lambda r: r[0])
    return out
