"""cells.csv and census.csv rows from the leaderboard and the recomputed values."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .floats import format_float_or_empty
from .prereg.leaderboard import NO_POLICY, SINGLE_VALUE, Measured, Prereg
from .read import Table
from .recipes import Recomputed
from .tiers import (
    DIVERGENT,
    NO_DATA,
    AbsDiff,
    Exact,
    compare,
    compare_strings,
    format_abs_diff,
    is_integer_tier,
    published_exact,
    published_number,
    recomputed_exact,
)
from .values import format_value, is_null

INFEASIBLE = "infeasible"  # a no_antecedent value no count can produce (Feasibility)
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
class Judged:
    """One measured column prepared for comparison: any published row against any recomputed row."""

    col: Measured
    pubs: list[Any]
    recs: list[dict[str, Any]]
    shown_recs: list[dict[str, str]]

    def tiers(self, j: int, k: int) -> list[tuple[str, str, AbsDiff]]:
        """(policy, tier, abs_diff) of row j's published value against row k's recomputed ones."""
        out: list[tuple[str, str, AbsDiff]] = []
        for policy in self.col.policies:
            if self.col.recipe == SINGLE_VALUE:
                out.append((policy, compare_strings(self.pubs[j], self.recs[k][policy]), None))
            else:
                assert self.col.tolerance is not None
                tier, diff = compare(self.pubs[j], self.recs[k][policy], self.col.tolerance)
                out.append((policy, tier, diff))
        return out

    def reproduces(self, j: int, k: int) -> bool:
        """Whether any policy reaches an integer tier for (published j, recomputed k)."""
        return any(is_integer_tier(tier) for _, tier, _ in self.tiers(j, k))

    def table(self, order: list[int]) -> np.ndarray:
        """The reproduce table: [j, k] = whether row order[k]'s values reproduce row order[j]'s.

        The same rule as reproduces(), without trying every pair: an integer
        tier means R rounded at the published cell's decimals equals P (found by
        value, one table per decimals found) or |P - R| within the cell's last
        tier bound (found by bisection over the sorted recomputed values)."""
        size = len(order)
        out = np.zeros((size, size), dtype=bool)
        pubs = [self.pubs[i] for i in order]
        for policy in self.col.policies:
            recs = [self.recs[i][policy] for i in order]
            if self.col.recipe == SINGLE_VALUE:
                same: dict[Any, list[int]] = {}
                for k, rec in enumerate(recs):
                    if rec is not None:
                        same.setdefault(rec, []).append(k)
                for j, pub in enumerate(pubs):
                    if pub is not None and pub in same:
                        out[j, same[pub]] = True
                continue
            ranked = sorted((rec.value, k) for k, rec in enumerate(recs) if rec is not None)
            values = [v for v, _ in ranked]
            rounded: dict[int, dict[Fraction, list[int]]] = {}  # per judged decimals
            for j, pub in enumerate(pubs):
                if not isinstance(pub, Exact):  # null, NaN, an infinity: divergent
                    continue
                if pub.decimals not in rounded:
                    at = rounded[pub.decimals] = {}
                    for v, k in ranked:
                        at.setdefault(round(v, pub.decimals), []).append(k)
                out[j, rounded[pub.decimals].get(pub.value, [])] = True
                if pub.bound is not None:
                    lo = bisect_left(values, pub.value - pub.bound)
                    hi = bisect_right(values, pub.value + pub.bound)
                    out[j, [k for _, k in ranked[lo:hi]]] = True
        return out


def judge(col: Measured, board: Table, recomputed: Recomputed) -> Judged:
    """Prepare one measured column: exact published and recomputed values."""
    assert board.frame is not None
    kind = board.kinds[col.name]
    raw = board.frame[col.name].to_numpy(dtype=object).tolist()
    rec = recomputed[col.name]
    if col.recipe == SINGLE_VALUE:
        pubs: list[Any] = [None if is_null(v) else format_value(v, kind) for v in raw]
        shown = [{NO_POLICY: r[NO_POLICY] if r[NO_POLICY] is not None else ""} for r in rec]
        return Judged(col, pubs, rec, shown)
    tol = col.tolerance
    assert tol is not None
    pubs = [published_exact(published_number(v, kind), tol) for v in raw]
    recs = [{p: recomputed_exact(r[p], tol) for p in col.policies} for r in rec]
    shown = [{p: format_float_or_empty(r[p]) for p in col.policies} for r in rec]
    return Judged(col, pubs, recs, shown)


def build(
    prereg: Prereg,
    board: Table,
    shown_ids: list[str],
    judged: dict[str, Judged],
    infeasible: frozenset[tuple[int, str]] = frozenset(),
) -> tuple[list[list[str]], list[list[str]], dict[str, list[str]]]:
    """cells rows, census rows (both sorted) and each measured column's census classes;
    a no_antecedent cell in `infeasible` (row index, column) has class infeasible."""
    assert board.frame is not None
    kinds = prereg.kind_of()
    cells: list[list[str]] = []
    census: list[list[str]] = []
    classes: dict[str, list[str]] = {name: [] for name in prereg.measured}
    for name in board.names:
        published = [format_value(v, board.kinds[name]) for v in board.frame[name].tolist()]
        kind = kinds[name]
        for i, row_id in enumerate(shown_ids):
            if kind != "measured":
                cells.append([row_id, name, kind, NO_POLICY, published[i], "", "", ""])
                infeasible_here = kind == "no_antecedent" and (i, name) in infeasible
                census.append(
                    [row_id, name, INFEASIBLE if infeasible_here else kind, "", "", "", ""]
                )
                continue
            jd = judged[name]
            reached: list[tuple[int, str]] = []
            diffs: list[AbsDiff] = []
            divergent = False
            for policy, tier, diff in jd.tiers(i, i):
                cells.append(
                    [
                        row_id,
                        name,
                        "measured",
                        policy,
                        published[i],
                        jd.shown_recs[i][policy],
                        format_abs_diff(diff),
                        tier,
                    ]
                )
                if is_integer_tier(tier):
                    reached.append((int(tier), policy))
                elif tier == DIVERGENT:
                    divergent = True
                if diff is not None:
                    diffs.append(diff)
            min_diff = format_abs_diff(min(diffs)) if diffs else ""
            if reached:
                cls = "reproduced"
                best = str(min(t for t, _ in reached))
                policies = ";".join(sorted(p for _, p in reached))
            else:
                cls = DIVERGENT if divergent else NO_DATA
                best, policies = "", ""
            classes[name].append(cls)
            # the decimals tier 0 judged a finite published number at, where it was judged
            pub = jd.pubs[i]
            judged_at = str(pub.decimals) if isinstance(pub, Exact) and cls != NO_DATA else ""
            census.append([row_id, name, cls, best, policies, min_diff, judged_at])
    cells.sort(key=lambda r: (r[0], r[1], r[3]))
    census.sort(key=lambda r: (r[0], r[1]))
    return cells, census, classes
