"""The recipes: recomputed values per measured column, leaderboard row and policy."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .errors import AMBIGUOUS_VALUE, InputError
from .instances import Instances, Runs
from .prereg import MEAN, MEAN_OF_COLUMNS, NO_POLICY, RATE, SINGLE_VALUE, Measured, Prereg
from .read import Table
from .values import divide, exact_total, format_value

# recomputed[column][leaderboard position][policy] -> float, str or None (no data)
Recomputed = dict[str, list[dict[str, Any]]]


class Sorted:
    """Source columns in the runs' order, each prepared once (several columns share a source)."""

    def __init__(self, inst: Instances, runs: Runs) -> None:
        self.inst = inst
        self.runs = runs
        self._counts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._values: dict[str, np.ndarray] = {}
        self._codes: dict[str, np.ndarray] = {}

    def counts(self, source: str) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative counts of (true, non-null) values of a rate source."""
        if source not in self._counts:
            true, valid = self.inst.flags[source]
            self._counts[source] = (self.runs.counts(true), self.runs.counts(valid))
        return self._counts[source]

    def values(self, source: str) -> np.ndarray:
        """A mean source's doubles (NaN: null)."""
        if source not in self._values:
            self._values[source] = self.inst.numbers[source][self.runs.order]
        return self._values[source]

    def codes(self, source: str) -> np.ndarray:
        """A single_value source's codes (-1: null)."""
        if source not in self._codes:
            self._codes[source] = self.inst.codes[source][self.runs.order]
        return self._codes[source]


def _rate(col: Measured, data: Sorted, keys: list[Any]) -> list[dict[str, Any]]:
    """k true values over n rows (nulls: failure) or n non-null values (nulls: exclude)."""
    assert col.source is not None and col.scale is not None
    true, valid = data.counts(col.source)
    out: list[dict[str, Any]] = []
    for key in keys:
        a, b = data.runs.span(key, col.group)
        counts = {"failure": b - a, "exclude": int(valid[b] - valid[a])}
        k = int(true[b] - true[a])
        cell: dict[str, Any] = {}
        for policy in col.policies:
            n = counts[col.nulls[policy]]
            cell[policy] = None if n == 0 else (col.scale * k) / n
        out.append(cell)
    return out


def _mean(col: Measured, data: Sorted, keys: list[Any]) -> list[dict[str, Any]]:
    """math.fsum of the non-null values (exclude) or of every row with null as 0.0 (zero)."""
    assert col.source is not None
    values = data.values(col.source)
    out: list[dict[str, Any]] = []
    for key in keys:
        a, b = data.runs.span(key, col.group)
        sel = values[a:b]
        present = sel[~np.isnan(sel)].tolist()
        total = exact_total(present)
        # nulls as 0.0 leave the correctly rounded sum as it is, but for the sign of a zero
        zero_total = total if len(present) == len(sel) else total + 0
        cell: dict[str, Any] = {}
        for policy in col.policies:
            if col.nulls[policy] == "exclude":
                cell[policy] = None if not present else divide(total, len(present))
            else:
                cell[policy] = None if len(sel) == 0 else divide(zero_total, len(sel))
        out.append(cell)
    return out


def _single(
    col: Measured, data: Sorted, keys: list[Any], order: list[int], shown: list[str]
) -> list[dict[str, Any]]:
    """The one distinct non-null value of the source, as a string; ambiguous_value if more."""
    assert col.source is not None
    inst = data.inst
    kind = inst.table.kinds[col.source]
    codes = data.codes(col.source)
    values = inst.encoders[col.source].values
    out: list[dict[str, Any]] = [{} for _ in keys]
    for i in order:
        a, b = data.runs.span(keys[i], col.group)
        sel = codes[a:b]
        sel = sel[sel >= 0]
        if len(values) <= 1 << 16:  # a tally, no hashing
            distinct = np.flatnonzero(np.bincount(sel, minlength=len(values)))
        else:
            distinct = pd.unique(sel)
        if len(distinct) > 1:
            raise InputError(
                AMBIGUOUS_VALUE,
                inst.table.display,
                f"'{col.source}' (for '{col.name}') holds {len(distinct)} distinct values "
                f"for row id '{shown[i]}'",
            )
        out[i] = {NO_POLICY: format_value(values[distinct[0]], kind) if len(distinct) else None}
    return out


def _mean_of_columns(col: Measured, done: Recomputed, size: int) -> list[dict[str, Any]]:
    """math.fsum of the listed columns' values under the same policy, no-data ones left out."""
    out: list[dict[str, Any]] = []
    for i in range(size):
        cell: dict[str, Any] = {}
        for policy in col.policies:
            used = [done[name][i][policy] for name in col.columns]
            used = [v for v in used if v is not None]
            cell[policy] = None if not used else divide(exact_total(used), len(used))
        out.append(cell)
    return out


def recompute(
    prereg: Prereg, board: Table, instances: Instances, shown: list[str], order: list[int]
) -> Recomputed:
    """Every measured column's recomputed values (ambiguous_value raised here).

    `shown` are the written row ids, `order` the leaderboard positions in canonical order."""
    assert board.frame is not None
    keys = board.frame[prereg.row_id].to_numpy(dtype=object).tolist()
    data = Sorted(instances, Runs(instances, prereg))
    done: Recomputed = {}
    for col in prereg.measured.values():
        if col.recipe == RATE:
            done[col.name] = _rate(col, data, keys)
        elif col.recipe == MEAN:
            done[col.name] = _mean(col, data, keys)
        elif col.recipe == SINGLE_VALUE:
            done[col.name] = _single(col, data, keys, order, shown)

    def resolve(name: str) -> None:
        col = prereg.measured[name]
        if name in done:
            return
        for listed in col.columns:
            resolve(listed)
        done[name] = _mean_of_columns(col, done, len(keys))

    for name, col in prereg.measured.items():
        if col.recipe == MEAN_OF_COLUMNS:
            resolve(name)
    return {name: done[name] for name in prereg.measured}
