"""chance.csv: agreement more exact than the published precision can explain (contract).

One frame of (column, row, policy) records with exact values; the per-cell
chance probability and exactness are columns of it, and the per-column
figures a groupby over the cells."""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

import numpy as np
import pandas as pd

from .cells import Judged
from .prereg.leaderboard import SINGLE_VALUE, Chance
from .recipes import Steps
from .tiers import Exact

CHANCE_HEADER = [
    "column",
    "candidates",
    "certain",
    "exact_certain",
    "tested",
    "exact_beyond",
    "expected",
    "p_cell_max",
    "p_value",
    "constructed",
]


def honest_decimals(pub: Fraction, eps: Fraction) -> int:
    """The float-honest decimals of a published decimal: the least d whose grid holds a
    point within max(eps, 2**-52) * max(1, |P|) of it (contract)."""
    tol = max(eps, Fraction(1, 2**52)) * max(Fraction(1), abs(pub))
    d = 0
    while abs(pub - round(pub, d)) > tol:
        d += 1
    return d


def column_grid(jd: Judged, eps: Fraction) -> int:
    """The grid of a column's published values: the most float-honest decimals any of
    them prints, never fewer than a fixed exact_decimals (contract)."""
    assert jd.col.tolerance is not None
    fixed = jd.col.tolerance.exact_decimals or 0
    return max([fixed, *(honest_decimals(p.value, eps) for p in jd.pubs if isinstance(p, Exact))])


def policy_probability(pub: Fraction, step: Fraction | None, eps: Fraction, d: int) -> Fraction:
    """Chance of landing within epsilon of the published grid point, grid 10**-d (contract)."""
    continuous = 2 * eps * max(Fraction(1), abs(pub)) * 10**d
    lattice = Fraction(0)
    if step is not None:
        lattice = Fraction(gcd(step.denominator, step.numerator * 10**d), step.denominator)
    return min(Fraction(1), max(lattice, continuous))


def count_tail(chances: list[Fraction], x: int) -> Fraction:
    """P(at least x of independent cells land), exactly: the count's distribution is the
    product of the polynomials (1 - p) + p t (a binomial when every p is the same).

    Over the chances' least common denominator D each factor is whole, (D - pD) + pD t,
    so the product is whole numbers (exact Python integers in an object array) over
    D**n: one division at the end instead of a fraction reduced at every step."""
    if x <= 0:
        return Fraction(1)
    common = lcm(*(p.denominator for p in chances))
    dist = np.array([1], dtype=object)
    for p in chances:
        landed = p.numerator * (common // p.denominator)
        dist = np.convolve(dist, np.array([common - landed, landed], dtype=object))
    return Fraction(int(dist[x:].sum()), common ** len(chances))


def _records(judged: dict[str, Judged], steps: Steps, eps: Fraction) -> pd.DataFrame:
    """One record per (column, row, policy) with a published number and a recomputed value."""
    rows: list[dict[str, object]] = []
    for name, jd in judged.items():
        if jd.col.recipe == SINGLE_VALUE:
            continue
        grid = column_grid(jd, eps)
        for i, pub in enumerate(jd.pubs):
            if not isinstance(pub, Exact):
                continue
            for policy in jd.col.policies:
                rec = jd.recs[i][policy]
                if rec is None:
                    continue
                step = steps[name][i][policy]
                rows.append(
                    {
                        "column": name,
                        "row": i,
                        "value": rec.value,
                        "step": step,
                        "p": policy_probability(pub.value, step, eps, grid),
                        "exact": abs(pub.value - rec.value) <= eps * max(1, abs(pub.value)),
                    }
                )
    frame = pd.DataFrame(rows, columns=["column", "row", "value", "step", "p", "exact"])
    # policies that give the same value on the same lattice are one chance, not two
    return frame.drop_duplicates(subset=["column", "row", "value", "step"])


def _fmt(x: Fraction) -> str:
    return f"{float(x):.6e}"


def rows(judged: dict[str, Judged], steps: Steps, chance: Chance) -> list[list[str]]:
    """One line per measured column (sorted by name)."""
    frame = _records(judged, steps, chance.epsilon)
    cells = frame.groupby(["column", "row"], sort=True).agg(
        p=("p", lambda ps: min(Fraction(1), sum(ps, Fraction(0)))), exact=("exact", "any")
    )
    cells["certain"] = cells["p"] >= 1
    out: list[list[str]] = []
    for name in sorted(judged):
        col = cells.loc[name] if name in cells.index.get_level_values(0) else cells.iloc[0:0]
        certain = col[col["certain"]]
        tested = col[~col["certain"]]
        x = int(tested["exact"].sum())
        p_max = max(tested["p"], default=Fraction(0))
        p_value = count_tail(list(tested["p"]), x)
        flagged = x > 0 and p_value < chance.threshold
        out.append(
            [
                name,
                str(len(col)),
                str(len(certain)),
                str(int(certain["exact"].sum())),
                str(len(tested)),
                str(x),
                _fmt(sum(tested["p"], Fraction(0))),
                _fmt(p_max),
                _fmt(p_value),
                "yes" if flagged else "no",
            ]
        )
    return out
