"""The four recipes: per measured column, per leaderboard row, per policy."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from itertools import chain
from math import gcd
from typing import Any

import pyarrow as pa

from .aggregate import Groups, population_key, run_decimals, run_values
from .errors import InputError
from .prereg.cells import SINGLE_VALUE_POLICY, Measured, Prereg, Universe
from .values import format_value

# recomputed[column][row position][policy] -> float, str or None (no data)
Recomputed = dict[str, list[dict[str, Any]]]
# lattice[column][row position][policy] -> the step the recomputed value moves by
# (contract, Agreement beyond chance), None where no lattice is counted
Lattice = dict[str, list[dict[str, Fraction | None]]]


def spanned(steps: list[Fraction | None]) -> Fraction | None:
    """The least positive step of sum(k_i * steps[i]) over whole k_i (None if a part has
    no lattice): folded pairwise, a/b and c/d span gcd(a d, c b) / (b d)."""
    if not steps or None in steps:
        return None
    out = steps[0]
    assert out is not None
    for s in steps[1:]:
        assert s is not None
        den = out.denominator * s.denominator
        out = Fraction(gcd(out.numerator * s.denominator, s.numerator * out.denominator), den)
    return out


def mean_lattice(decimals: int, n: int) -> Fraction:
    """Values on the grid 10**-decimals sum to that grid: their mean moves by 10**-decimals / n."""
    return Fraction(1, 10**decimals * n)


def exact_sum(chunks: list[Sequence[float]]) -> float | Fraction:
    """The sum of the values, rounded once to a double (`math.fsum`), or exact if that overflows.

    `math.fsum` raises as soon as a partial sum overflows, and whenever the
    exact sum rounds beyond the largest double; the exact sum decides then."""
    try:
        return math.fsum(chain.from_iterable(chunks))
    except OverflowError:
        return sum((Fraction(v) for chunk in chunks for v in chunk), Fraction(0))


def divide(total: float | Fraction, n: int) -> float:
    """The contract's mean from `exact_sum`: one division by n, or the exact mean rounded once.

    When the exact sum rounds beyond the largest double, the exact mean is
    rounded once instead; it lies between the values, so it is a double."""
    if isinstance(total, float):
        return total / float(n)
    try:
        return float(total) / float(n)
    except OverflowError:
        return float(total / n)


def mean_value(values: list[float], n: int) -> float:
    """The contract's mean: the correctly rounded sum, then one division by n."""
    return divide(exact_sum([values]), n)


def _rate(
    pr: Prereg, m: Measured, g: Groups, idx: list[int], steps: dict[str, Fraction | None]
) -> dict[str, float | None]:
    assert m.source is not None and m.scale is not None
    n_all = sum(g.count(i) for i in idx)
    if m.fixed is not None and n_all:
        n_all = m.fixed  # instances the row does not list count as null ones
    n_valid = sum(g.n_valid[m.source][i] for i in idx)
    k = sum(g.n_true[m.source][i] for i in idx)
    out: dict[str, float | None] = {}
    for p in m.policies:
        n = n_all if pr.policies[p].nulls == "failure" else n_valid
        out[p] = float(m.scale * k) / float(n) if n else None
        steps[p] = Fraction(m.scale) / n if n else None
    return out


def _mean(
    pr: Prereg, m: Measured, g: Groups, idx: list[int], steps: dict[str, Fraction | None]
) -> dict[str, float | None]:
    assert m.source is not None
    out: dict[str, float | None] = {}
    # one sum per population the policies take the mean over (most share every row)
    per_population: dict[str | None, tuple[float | Fraction, int, int, int]] = {}
    for p in m.policies:
        pop = pr.policies[p].population
        if pop not in per_population:
            key = population_key(m.source, pop)
            chunks, n_valid = run_values(g, key, idx)
            if pop is None:
                n_all = sum(g.count(i) for i in idx)
                if m.fixed is not None and n_all:
                    n_all = m.fixed  # instances the row does not list count as null ones
            else:
                n_all = sum(g.n_valid[pop][i] for i in idx)
            total = exact_sum(chunks)
            per_population[pop] = (total, n_valid, n_all, run_decimals(g, key, idx))
        total, n_valid, n_all, places = per_population[pop]
        n = n_valid if pr.policies[p].nulls == "exclude" else n_all
        if not n:
            out[p] = None
            steps[p] = None
        elif m.total:  # a sum: no division (scale 1, n 1)
            out[p] = scaled_mean(total, 1, 1)
            steps[p] = mean_lattice(places, 1)
        else:
            scale = m.scale or 1
            out[p] = divide(total, n) if scale == 1 else scaled_mean(total, n, scale)
            steps[p] = mean_lattice(places, n) * scale
    return out


def scaled_mean(total: float | Fraction, n: int, scale: int) -> float | None:
    """scale * total / n, exactly, rounded once to a double; None beyond the largest one."""
    exact = Fraction(total) * scale / n
    try:
        return float(exact)
    except OverflowError:
        return None


def _single(
    m: Measured,
    g: Groups,
    idx: list[int],
    typ: pa.DataType,
    row_shown: str,
    path: str,
) -> dict[str, str | None]:
    assert m.source is not None
    distinct: list[Any] = []
    for i in idx:
        for v in g.distinct[m.source][i]:
            # Python's ==, not Arrow's dictionary (which tells their bits apart): a float
            # as an IEEE number, 0.0 and -0.0 one value (docs/contract.md, Recipes)
            if v is not None and v not in distinct:
                distinct.append(v)
    if len(distinct) > 1:
        raise InputError(
            "ambiguous_value",
            path,
            f"source {m.source!r} holds {len(distinct)} distinct values for row id {row_shown!r}",
        )
    value = format_value(distinct[0], typ) if distinct else None
    return {SINGLE_VALUE_POLICY: value}


def _order(pr: Prereg) -> list[str]:
    """Measured columns with every mean_of_columns after the columns it lists."""
    done: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        for c in pr.measured[name].columns:
            visit(c)
        done.append(name)

    for name in pr.measured:
        visit(name)
    return done


def recompute(
    pr: Prereg,
    groups: Groups,
    row_ids: list[Any],
    row_shown: list[str],
    source_types: dict[str, pa.DataType],
    instances_path: str,
) -> tuple[Recomputed, Lattice]:
    """Every recomputed value and its lattice; ambiguous_value if a single_value source disagrees."""
    out: Recomputed = {}
    lattice: Lattice = {}
    # single_value first, in prereg order, so ambiguous_value is found in that order
    for name, m in pr.measured.items():
        if m.recipe != "single_value":
            continue
        typ = source_types[m.source]  # type: ignore[index]
        out[name] = [
            _single(m, groups, groups.indices(rid, m.group), typ, shown, instances_path)
            for rid, shown in zip(row_ids, row_shown)
        ]
    for name in _order(pr):
        m = pr.measured[name]
        lattice[name] = [{} for _ in row_ids]
        if m.recipe == "rate":
            out[name] = [
                _rate(pr, m, groups, groups.indices(r, m.group), lattice[name][j])
                for j, r in enumerate(row_ids)
            ]
        elif m.recipe == "mean":
            out[name] = [
                _mean(pr, m, groups, groups.indices(r, m.group), lattice[name][j])
                for j, r in enumerate(row_ids)
            ]
        elif m.recipe == "mean_of_columns":
            # the parts of every (row, policy), their decimals found in one pass
            parts = {
                (j, p): [out[c][j][p] for c in m.columns if out[c][j][p] is not None]
                for j in range(len(row_ids))
                for p in m.policies
            }
            rows: list[dict[str, Any]] = []
            for j in range(len(row_ids)):
                cell: dict[str, Any] = {}
                for p in m.policies:
                    vals = parts[j, p]
                    cell[p] = mean_value(vals, len(vals)) if vals else None
                    # each part moves on its own lattice; their sum on the lattice they span
                    spans = [lattice[c][j][p] for c in m.columns if out[c][j][p] is not None]
                    joint = spanned(spans) if vals else None
                    lattice[name][j][p] = None if joint is None else joint / len(vals)
                rows.append(cell)
            out[name] = rows
    _check_denominators(pr, groups, row_ids, row_shown, instances_path)
    return out, lattice


def _check_denominators(
    pr: Prereg, groups: Groups, row_ids: list[Any], row_shown: list[str], path: str
) -> None:
    """bad_denominator: a row listing more instance rows for a column than its declared
    denominator (columns in prereg order, rows in canonical order)."""
    for name, m in pr.measured.items():
        if m.fixed is None:
            continue
        for rid, shown in zip(row_ids, row_shown):
            runs = groups.indices(rid, m.group)
            listed = sum(groups.count(i) for i in runs)
            if listed > m.fixed:
                raise InputError(
                    "bad_denominator",
                    path,
                    f"row id {shown!r} lists {listed} instance rows for {name!r}, more than "
                    f"its declared denominator {m.fixed}",
                )
            if m.universe is not None and listed:
                problem = _outside_universe(m.universe, groups, runs, listed)
                if problem:
                    raise InputError("bad_denominator", path, f"row id {shown!r} {problem}")


def _outside_universe(u: Universe, groups: Groups, runs: list[int], listed: int) -> str:
    """What is wrong with a row's instance ids against the declared universe ('' if nothing)."""
    ids: set[Any] = set()
    for i in runs:
        ids.update(groups.distinct[u.column][i])
    strays = sorted(str(v) for v in ids if v is not None and v not in u.ids)
    if strays:
        return f"lists instance id {strays[0]!r}, outside the declared universe"
    if None in ids or len(ids) != listed:
        return f"lists {listed} instance rows, not {listed} distinct ids"
    if u.refuse_missing and len(ids) < len(u.ids):
        return f"leaves out instance id {min(u.ids - ids)!r} of the declared universe"
    return ""
