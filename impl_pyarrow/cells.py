"""Judging every measured cell, and the rows of cells.csv and census.csv."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pyarrow as pa

from .prereg.cells import Measured, Prereg
from .recipes import Recomputed
from .tiers import (
    DIVERGENT,
    NO_DATA,
    cell_decimals,
    is_integer_tier,
    numeric_tier,
    string_tier,
)
from .values import format_float, format_fraction, format_value, published_decimal, python_list

CELLS_HEADER = ["row_id", "column", "kind", "policy", "published", "recomputed", "abs_diff", "tier"]
CENSUS_HEADER = [
    "row_id",
    "column",
    "class",
    "best_tier",
    "policies",
    "min_abs_diff",
    "decimals",
]


@dataclass
class Leaderboard:
    """The published table in canonical row order (row ids sorted by code point)."""

    names: list[str]
    types: dict[str, pa.DataType]
    values: dict[str, list[Any]]  # canonical order
    shown: dict[str, list[str]]  # written form, canonical order
    row_ids: list[Any]
    row_shown: list[str]


def leaderboard(table: pa.Table, row_id: str) -> Leaderboard:
    """Python values of the (small) leaderboard, rows sorted by written row id."""
    names = table.column_names
    types = {f.name: f.type for f in table.schema}
    raw = {n: python_list(table.column(n)) for n in names}
    ids_shown = [format_value(v, types[row_id]) for v in raw[row_id]]
    order = sorted(range(table.num_rows), key=lambda i: ids_shown[i])
    values = {n: [raw[n][i] for i in order] for n in names}
    shown = {n: [format_value(v, types[n]) for v in values[n]] for n in names}
    return Leaderboard(
        names=names,
        types=types,
        values=values,
        shown=shown,
        row_ids=values[row_id],
        row_shown=shown[row_id],
    )


@dataclass(frozen=True)
class Judged:
    """One measured cell under one policy."""

    policy: str
    recomputed: str
    abs_diff: Fraction | None
    tier: str


def published_key(m: Measured, lb: Leaderboard, j: int) -> Any:
    """What the tier rules compare: an exact decimal (numbers) or a string (single_value)."""
    value = lb.values[m.name][j]
    if m.recipe == "single_value":
        return None if value is None else lb.shown[m.name][j]
    return published_decimal(value, lb.types[m.name])


def judge_one(m: Measured, published: Any, rec: dict[str, Any]) -> list[Judged]:
    """Every policy of one cell, published value against one set of recomputed values."""
    out: list[Judged] = []
    for p in m.policies:
        r = rec[p]
        if m.recipe == "single_value":
            out.append(Judged(p, "" if r is None else r, None, string_tier(published, r)))
        else:
            assert m.tolerance is not None
            tier, diff = numeric_tier(published, r, m.tolerance)
            out.append(Judged(p, "" if r is None else format_float(r), diff, tier))
    return out


def judge(pr: Prereg, lb: Leaderboard, rec: Recomputed) -> dict[str, list[list[Judged]]]:
    """Judged cells per measured column, per canonical row."""
    return {
        name: [judge_one(m, published_key(m, lb, j), rec[name][j]) for j in range(len(lb.row_ids))]
        for name, m in pr.measured.items()
    }


def census_class(judged: list[Judged]) -> tuple[str, str, str, str]:
    """(class, best_tier, policies, min_abs_diff) of one measured cell."""
    ints = [j for j in judged if is_integer_tier(j.tier)]
    diffs = [j.abs_diff for j in judged if j.abs_diff is not None]
    min_diff = format_fraction(min(diffs)) if diffs else ""
    if ints:
        best = min(int(j.tier) for j in ints)
        pols = ";".join(sorted(j.policy for j in ints))
        return "reproduced", str(best), pols, min_diff
    if any(j.tier == DIVERGENT for j in judged):
        return DIVERGENT, "", "", min_diff
    return NO_DATA, "", "", min_diff


def judged_decimals(pr: Prereg, lb: Leaderboard, name: str, j: int, cls: str) -> str:
    """The decimals tier 0 judged a cell at (contract, Tiers): a finite published number
    of a numeric column, reproduced or divergent; empty for any other cell."""
    m = pr.measured[name]
    if m.recipe == "single_value" or cls == NO_DATA:
        return ""
    published = published_key(m, lb, j)
    assert m.tolerance is not None
    return "" if published is None else str(cell_decimals(published, m.tolerance))


def kind_of(pr: Prereg, name: str) -> str:
    """structural, no_antecedent or measured."""
    if name in pr.measured:
        return "measured"
    if name in pr.structural:
        return "structural"
    return "no_antecedent"


def cells_rows(
    pr: Prereg, lb: Leaderboard, judged: dict[str, list[list[Judged]]]
) -> list[list[str]]:
    """Rows of cells.csv, sorted by (row_id, column, policy)."""
    rows: list[list[str]] = []
    for j, rid in enumerate(lb.row_shown):
        for name in lb.names:
            kind = kind_of(pr, name)
            published = lb.shown[name][j]
            if kind != "measured":
                rows.append([rid, name, kind, "-", published, "", "", ""])
                continue
            for c in judged[name][j]:
                diff = "" if c.abs_diff is None else format_fraction(c.abs_diff)
                rows.append([rid, name, kind, c.policy, published, c.recomputed, diff, c.tier])
    rows.sort(key=lambda r: (r[0], r[1], r[3]))
    return rows


def census_rows(
    pr: Prereg,
    lb: Leaderboard,
    judged: dict[str, list[list[Judged]]],
    infeasible: set[tuple[int, str]] | None = None,
) -> list[list[str]]:
    """Rows of census.csv, sorted by (row_id, column); a no_antecedent cell found
    infeasible (Feasibility) has class infeasible."""
    rows: list[list[str]] = []
    for j, rid in enumerate(lb.row_shown):
        for name in lb.names:
            kind = kind_of(pr, name)
            if kind == "no_antecedent" and infeasible and (j, name) in infeasible:
                rows.append([rid, name, "infeasible", "", "", "", ""])
            elif kind != "measured":
                rows.append([rid, name, kind, "", "", "", ""])
            else:
                found = census_class(judged[name][j])
                rows.append([rid, name, *found, judged_decimals(pr, lb, name, j, found[0])])
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows
