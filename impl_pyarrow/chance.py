"""Agreement beyond chance (contract): per measured column, the cells that equal the
published value more exactly than its printed decimals and the recipe's lattice explain."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import Any

from .cells import Leaderboard, published_key
from .prereg.cells import Prereg
from .recipes import Lattice, Recomputed

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


def honest_places(published: Fraction, epsilon: Fraction) -> int:
    """Float-honest decimals of a published decimal: the least d such that P * 10**d lies
    within max(epsilon, 2**-52) * max(|P|, 1) * 10**d of a whole number."""
    slack = max(epsilon, Fraction(1, 1 << 52)) * max(abs(published), Fraction(1))
    d = 0
    while True:
        scaled = published * 10**d
        if abs(scaled - round(scaled)) <= slack * 10**d:
            return d
        d += 1


def chance_of(published: Fraction, step: Fraction | None, epsilon: Fraction, grid: int) -> Fraction:
    """max(share of the lattice on the grid 10**-grid, 2 epsilon max(1, |P|) / grid step),
    at most 1."""
    scale = 10**grid  # one over the grid step
    p = 2 * epsilon * max(abs(published), Fraction(1)) * scale
    if step is not None:
        # points k * a / b lie on the grid when k * a * scale / b is whole: one k in
        # b / gcd(b, a * scale)
        a, b = step.numerator, step.denominator
        p = max(p, Fraction(gcd(b, a * scale), b))
    return p if p < 1 else Fraction(1)


def upper_tail(chances: list[Fraction], x: int) -> Fraction:
    """P(at least x cells land) for independent cells with these chances, exactly.

    below[k] = P(exactly k landed so far) for k < x, cell by cell; the answer is one
    minus their sum at the end (a binomial's tail when all chances are equal). Each
    below[k] is kept as a whole number over the product of the denominators of the
    chances taken so far (a chance a/b turns N/Q into (N (b - a) + N' a) / (Q b)):
    integers throughout, one fraction at the end."""
    if x <= 0:
        return Fraction(1)
    below = [1] + [0] * (x - 1)
    over = 1
    for p in chances:
        a, b = p.numerator, p.denominator
        for k in range(x - 1, 0, -1):
            below[k] = below[k] * (b - a) + below[k - 1] * a
        below[0] *= b - a
        over *= b
    return Fraction(over - sum(below), over)


@dataclass
class _Column:
    certain: int = 0
    exact_certain: int = 0
    tested: int = 0
    exact_beyond: int = 0
    expected: Fraction = Fraction(0)
    p_max: Fraction = Fraction(0)
    chances: list[Fraction] = field(default_factory=list)


def _e(x: Fraction) -> str:
    return format(float(x), ".6e")


def chance_rows(pr: Prereg, lb: Leaderboard, rec: Recomputed, lattice: Lattice) -> list[list[Any]]:
    """Lines of chance.csv, columns by name."""
    eps = pr.chance.epsilon
    out: list[list[Any]] = []
    for name in sorted(pr.measured):
        m = pr.measured[name]
        acc = _Column()
        if m.recipe != "single_value":
            assert m.tolerance is not None
            printed = [published_key(m, lb, j) for j in range(len(lb.row_ids))]
            # the column's grid: its finest float-honest print, at least a fixed exact_decimals
            grid = max(
                [m.tolerance.exact_decimals or 0]
                + [honest_places(p, eps) for p in printed if p is not None]
            )
            for j, published in enumerate(printed):
                if published is None:
                    continue
                chances: dict[tuple[float, Fraction | None], Fraction] = {}
                exact = False
                for p in m.policies:
                    r = rec[name][j][p]
                    if r is None:
                        continue
                    # the same value on the same lattice under two policies is one chance
                    chances[(r, lattice[name][j][p])] = chance_of(
                        published, lattice[name][j][p], eps, grid
                    )
                    exact = exact or abs(published - Fraction(r)) <= eps * max(abs(published), 1)
                if not chances:
                    continue
                cell = min(sum(chances.values(), Fraction(0)), Fraction(1))
                if cell == 1:
                    acc.certain += 1
                    acc.exact_certain += exact
                else:
                    acc.tested += 1
                    acc.exact_beyond += exact
                    acc.expected += cell
                    acc.p_max = max(acc.p_max, cell)
                    acc.chances.append(cell)
        p_value = upper_tail(acc.chances, acc.exact_beyond)
        flagged = acc.exact_beyond > 0 and p_value < pr.chance.threshold
        out.append(
            [
                name,
                acc.certain + acc.tested,
                acc.certain,
                acc.exact_certain,
                acc.tested,
                acc.exact_beyond,
                _e(acc.expected),
                _e(acc.p_max),
                _e(p_value),
                "yes" if flagged else "no",
            ]
        )
    return out
