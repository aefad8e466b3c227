"""The recipes: recomputed values per measured column, leaderboard row and policy."""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm
from typing import Any

import numpy as np

from . import places
from .errors import AMBIGUOUS_VALUE, BAD_DENOMINATOR, InputError
from .instances import Instances, Runs
from .prereg.leaderboard import (
    MEAN,
    MEAN_OF_COLUMNS,
    NO_POLICY,
    RATE,
    SINGLE_VALUE,
    Measured,
    Prereg,
)
from .read import Table
from .runsums import RunSums
from .values import divide, exact_total, format_value

# recomputed[column][leaderboard position][policy] -> float, str or None (no data)
Recomputed = dict[str, list[dict[str, Any]]]
# steps[column][leaderboard position][policy] -> the lattice step of the recomputed
# value (contract, Agreement beyond chance), or None: no lattice is counted
Steps = dict[str, list[dict[str, Fraction | None]]]


def run_decimals(runs: Runs, values: np.ndarray, epsilon: Fraction) -> np.ndarray:
    """Per run: the most float-honest decimals of its non-null values (0 for none)."""
    x = runs.rows(values)
    present = ~np.isnan(x)
    return places.most_honest_per_run(x[present], runs.key[present], runs.count, epsilon)


def mean_step(decimals: int, n: int, scale: int = 1) -> Fraction:
    """Values on the grid 10**-decimals: scale times their mean moves by scale * 10**-decimals / n
    (a sum: n = 1)."""
    return Fraction(scale, n * 10**decimals)


def scaled(total: float | Fraction, n: int, scale: int) -> float | None:
    """scale * total / n rounded once to a double; None beyond the largest double.

    Scale 1 is values.divide (one IEEE division of the sum's double, or the
    exact mean of an exact sum rounded once)."""
    if scale == 1 and isinstance(total, float):
        return divide(total, n)
    try:
        return float(Fraction(total) * scale / n)
    except OverflowError:
        return None


_DENSE_CODES = 1 << 22  # runs x distinct values tallied densely; beyond that, sorted


_CHUNK = 1 << 20  # rows per step


def _pairs(runs: Runs, codes: np.ndarray, a: int, b: int, size: int) -> np.ndarray:
    """run * size + code for rows [a, b) whose code is not null."""
    part = codes[a:b]
    valid = part >= 0
    pairs = runs.key[a:b][valid]  # a copy: scaled in place
    pairs *= size
    pairs += part[valid]
    return pairs


class Distinct:
    """The distinct non-null codes of a single_value source per run."""

    def __init__(self, runs: Runs, codes: np.ndarray, size: int) -> None:
        codes = runs.rows(codes)
        self.size = size
        self._dense: np.ndarray | None = None
        self._pairs: np.ndarray | None = None
        if runs.count * size <= _DENSE_CODES:  # tallied chunk by chunk: no full-size temporaries
            tally = np.zeros(runs.count * size, dtype=bool)
            for a in range(0, len(codes), _CHUNK):
                tally |= (
                    np.bincount(_pairs(runs, codes, a, a + _CHUNK, size), minlength=len(tally)) > 0
                )
            self._dense = tally.reshape(runs.count, size)
        else:
            self._pairs = np.unique(_pairs(runs, codes, 0, len(codes), size))

    def codes(self, a: int, b: int) -> np.ndarray:
        """The distinct codes among runs [a, b)."""
        if self._dense is not None:
            return np.flatnonzero(self._dense[a:b].any(axis=0))
        assert self._pairs is not None
        lo, hi = np.searchsorted(self._pairs, [a * self.size, b * self.size])
        return np.unique(self._pairs[lo:hi] % self.size)


class Aggregates:
    """Per-run tallies of the source columns, each made once (several columns share a source)."""

    def __init__(self, inst: Instances, runs: Runs, epsilon: Fraction) -> None:
        self.inst = inst
        self.runs = runs
        self.epsilon = epsilon  # the float-honest decimals' tolerance (chance.epsilon)
        self._counts: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._sums: dict[tuple[str, str | None], RunSums] = {}
        self._distinct: dict[str, Distinct] = {}
        self._decimals: dict[tuple[str, str | None], np.ndarray] = {}

    def counts(self, source: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per run: rows, true values and non-null values of a rate source."""
        if source not in self._counts:
            true, valid = self.inst.flags[source]
            runs = self.runs
            self._counts[source] = (
                runs.tally(),
                runs.tally(runs.rows(true)),
                runs.tally(runs.rows(valid)),
            )
        return self._counts[source]

    def values(self, source: str, population: str | None) -> np.ndarray:
        """A mean source's doubles; with a population column, NaN (null) where it is null."""
        if population is None:
            return self.inst.numbers[source]
        recorded = self.inst.flags[population][1]
        return np.where(recorded, self.inst.numbers[source], np.nan)

    def sums(self, source: str, population: str | None = None) -> RunSums:
        """Per run: rows, non-null values and their exact sum of a mean source."""
        key = (source, population)
        if key not in self._sums:
            self._sums[key] = RunSums(self.runs, self.values(source, population))
        return self._sums[key]

    def decimals(self, source: str, population: str | None = None) -> np.ndarray:
        """Per run: the most decimals a non-null value of a mean source prints."""
        key = (source, population)
        if key not in self._decimals:
            self._decimals[key] = run_decimals(
                self.runs, self.values(source, population), self.epsilon
            )
        return self._decimals[key]

    def distinct(self, source: str) -> Distinct:
        """Per run: the distinct non-null codes of a single_value source."""
        if source not in self._distinct:
            size = len(self.inst.encoders[source].values)
            self._distinct[source] = Distinct(self.runs, self.inst.codes[source], size)
        return self._distinct[source]


def _rate(col: Measured, data: Aggregates, keys: list[Any], steps: Steps) -> list[dict[str, Any]]:
    """k true values over n rows (nulls: failure) or n non-null values (nulls: exclude)."""
    assert col.source is not None and col.scale is not None
    rows, true, valid = data.counts(col.source)
    out: list[dict[str, Any]] = []
    lattice = steps.setdefault(col.name, [])
    for key in keys:
        a, b = data.runs.span(key, col.group)
        listed = int(rows[a:b].sum())
        # a declared denominator: the instances the row does not list count as null ones
        every = col.fixed if col.fixed is not None and listed else listed
        counts = {"failure": every, "exclude": int(valid[a:b].sum())}
        k = int(true[a:b].sum())
        cell: dict[str, Any] = {}
        for policy in col.policies:
            n = counts[col.nulls[policy]]
            cell[policy] = None if n == 0 else (col.scale * k) / n
        out.append(cell)
        lattice.append(
            {
                p: Fraction(col.scale, n) if n else None
                for p, n in ((p, counts[col.nulls[p]]) for p in col.policies)
            }
        )
    return out


def _mean(col: Measured, data: Aggregates, keys: list[Any], steps: Steps) -> list[dict[str, Any]]:
    """math.fsum of the non-null values (exclude) or of every row with null as 0.0 (zero),
    over the rows of the policy's population (every row, or those whose population
    column is not null)."""
    assert col.source is not None
    out: list[dict[str, Any]] = [{} for _ in keys]
    lattice = steps.setdefault(col.name, [{} for _ in keys])
    for population in dict.fromkeys(col.population.get(p) for p in col.policies):
        policies = [p for p in col.policies if col.population.get(p) == population]
        sums = data.sums(col.source, population)
        most = data.decimals(col.source, population)
        recorded = None if population is None else data.counts(population)[2]
        for i, key in enumerate(keys):
            a, b = data.runs.span(key, col.group)
            present = int(sums.present[a:b].sum())
            rows = int(sums.rows[a:b].sum()) if recorded is None else int(recorded[a:b].sum())
            if col.fixed is not None and recorded is None and rows:
                rows = col.fixed  # the instances the row does not list count as null ones
            # nulls as 0.0 leave the correctly rounded sum as it is (fsum never returns -0.0)
            total = sums.total(a, b) if present else 0.0
            ns = {"exclude": present, "zero": rows}
            e = int(most[a:b].max()) if b > a else 0
            for policy in policies:
                n = ns[col.nulls[policy]]
                if not n:
                    out[i][policy] = lattice[i][policy] = None
                elif col.total:  # a sum: no division; beyond the largest double, no data
                    out[i][policy] = total if isinstance(total, float) else None
                    lattice[i][policy] = mean_step(e, 1)
                else:
                    scale = col.scale or 1
                    out[i][policy] = scaled(total, n, scale)
                    lattice[i][policy] = mean_step(e, n, scale)
    for i in range(len(keys)):  # the policies in their declared order, as the other recipes
        out[i] = {p: out[i][p] for p in col.policies}
        lattice[i] = {p: lattice[i][p] for p in col.policies}
    return out


def _single(
    col: Measured, data: Aggregates, keys: list[Any], order: list[int], shown: list[str]
) -> list[dict[str, Any]]:
    """The one distinct non-null value of the source, as a string; ambiguous_value if more."""
    assert col.source is not None
    inst = data.inst
    kind = inst.table.kinds[col.source]
    values = inst.encoders[col.source].values
    distinct_codes = data.distinct(col.source)
    out: list[dict[str, Any]] = [{} for _ in keys]
    for i in order:
        a, b = data.runs.span(keys[i], col.group)
        distinct = distinct_codes.codes(a, b)
        if len(distinct) > 1:
            raise InputError(
                AMBIGUOUS_VALUE,
                inst.table.display,
                f"'{col.source}' (for '{col.name}') holds {len(distinct)} distinct values "
                f"for row id '{shown[i]}'",
            )
        out[i] = {NO_POLICY: format_value(values[distinct[0]], kind) if len(distinct) else None}
    return out


def generated(parts: list[Fraction | None]) -> Fraction | None:
    """The step of the lattice the parts' lattices make together: sums of k_i * s_i are
    the multiples of gcd(numerators over the common denominator) / that denominator.
    None if a part has no lattice."""
    if not parts or any(s is None for s in parts):
        return None
    common = lcm(*(s.denominator for s in parts))  # type: ignore[union-attr]
    return Fraction(gcd(*(s.numerator * (common // s.denominator) for s in parts)), common)  # type: ignore[union-attr]


def _mean_of_columns(
    col: Measured, done: Recomputed, size: int, steps: Steps
) -> list[dict[str, Any]]:
    """math.fsum of the listed columns' values under the same policy, no-data ones left out."""
    out: list[dict[str, Any]] = []
    lattice = steps.setdefault(col.name, [])
    for i in range(size):
        cell: dict[str, Any] = {}
        step: dict[str, Fraction | None] = {}
        for policy in col.policies:
            parts = [name for name in col.columns if done[name][i][policy] is not None]
            used = [done[name][i][policy] for name in parts]
            total = exact_total(used) if used else None
            cell[policy] = None if total is None else divide(total, len(used))
            if total is None:
                step[policy] = None
            else:  # the parts move on their own lattices; their sum on the one they make
                joint = generated([steps[name][i][policy] for name in parts])
                step[policy] = None if joint is None else joint / len(used)
        out.append(cell)
        lattice.append(step)
    return out


def recompute(
    prereg: Prereg, board: Table, instances: Instances, shown: list[str], order: list[int]
) -> tuple[Recomputed, Steps]:
    """Every measured column's recomputed values (ambiguous_value raised here).

    `shown` are the written row ids, `order` the leaderboard positions in canonical order."""
    assert board.frame is not None
    keys = board.frame[prereg.row_id].to_numpy(dtype=object).tolist()
    data = Aggregates(instances, Runs(instances, prereg), prereg.chance.epsilon)
    done: Recomputed = {}
    steps: Steps = {}
    for col in prereg.measured.values():
        if col.recipe == RATE:
            done[col.name] = _rate(col, data, keys, steps)
        elif col.recipe == MEAN:
            done[col.name] = _mean(col, data, keys, steps)
        elif col.recipe == SINGLE_VALUE:
            done[col.name] = _single(col, data, keys, order, shown)

    def resolve(name: str) -> None:
        col = prereg.measured[name]
        if name in done:
            return
        for listed in col.columns:
            resolve(listed)
        done[name] = _mean_of_columns(col, done, len(keys), steps)

    for name, col in prereg.measured.items():
        if col.recipe == MEAN_OF_COLUMNS:
            resolve(name)
    check_denominators(prereg, data, keys, order, shown)
    return {name: done[name] for name in prereg.measured}, steps


def check_denominators(
    prereg: Prereg, data: Aggregates, keys: list[Any], order: list[int], shown: list[str]
) -> None:
    """bad_denominator: a row listing more instance rows in a column's group than the
    column's declared denominator (columns in prereg order, rows in canonical order)."""
    rows = data.runs.tally()
    for col in prereg.measured.values():
        if col.fixed is None:
            continue
        for i in order:
            a, b = data.runs.span(keys[i], col.group)
            listed = int(rows[a:b].sum())
            if listed > col.fixed:
                raise InputError(
                    BAD_DENOMINATOR,
                    data.inst.table.display,
                    f"row id '{shown[i]}' lists {listed} instance rows for '{col.name}', "
                    f"more than its declared denominator {col.fixed}",
                )
            if col.universe is not None and listed:
                _check_universe(col, data, a, b, listed, shown[i])


def _check_universe(col: Measured, data: Aggregates, a: int, b: int, listed: int, row: str) -> None:
    """bad_denominator: a row's instance ids (runs [a, b)) not each once in the universe,
    or, where declared, an id of the universe it does not list."""
    universe = col.universe
    assert universe is not None
    ids = data.inst.encoders[universe.column].values
    found = {ids[c] for c in data.distinct(universe.column).codes(a, b)}
    outside = sorted(found - universe.ids)
    problem = None
    if outside:
        problem = f"lists instance id '{outside[0]}', not in the declared universe"
    elif len(found) < listed:  # a null id, or an id on two rows
        problem = f"lists {listed} instance rows but {len(found)} distinct ids"
    elif universe.refuse_missing and len(found) < len(universe.ids):
        first = min(universe.ids - found)
        problem = f"does not list instance id '{first}' of the declared universe"
    if problem is not None:
        raise InputError(
            BAD_DENOMINATOR, data.inst.table.display, f"row id '{row}' {problem} ('{col.name}')"
        )
