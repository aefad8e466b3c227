"""The recipes: recomputed values per measured column, leaderboard row and policy."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from .checks import float_values
from .errors import AMBIGUOUS_VALUE, InputError
from .prereg import MEAN, MEAN_OF_COLUMNS, NO_POLICY, RATE, SINGLE_VALUE, Measured, Prereg
from .read import Table
from .values import FLOATING, format_value, is_null

# recomputed[column][leaderboard position][policy] -> float, str or None (no data)
Recomputed = dict[str, list[dict[str, Any]]]


class Instances:
    """The instance table grouped by row id, optionally within one group."""

    def __init__(self, table: Table, prereg: Prereg) -> None:
        assert table.frame is not None
        self.table = table
        self.frame = table.frame
        self.row_id = prereg.row_id
        self.group_by = prereg.group_by
        self._positions: dict[str | None, dict[Any, np.ndarray]] = {}

    def positions(self, group: str | None) -> dict[Any, np.ndarray]:
        """Row id -> positions of its instance rows (in the group, if one is given)."""
        if group not in self._positions:
            frame = self.frame
            if group is not None:
                frame = frame[(frame[self.group_by] == group).to_numpy(dtype=bool)]
            index = frame.index.to_numpy()
            grouped = frame.groupby(self.row_id, sort=False, dropna=True).indices
            self._positions[group] = {key: index[pos] for key, pos in grouped.items()}
        return self._positions[group]


def _lookup(positions: dict[Any, np.ndarray], key: Any) -> np.ndarray:
    if is_null(key):
        return np.empty(0, dtype=np.int64)
    try:
        return positions.get(key, np.empty(0, dtype=np.int64))
    except TypeError:  # unhashable key never matches
        return np.empty(0, dtype=np.int64)


def _rate(col: Measured, inst: Instances, keys: list[Any]) -> list[dict[str, Any]]:
    """k true values over n rows (nulls: failure) or n non-null values (nulls: exclude)."""
    assert col.source is not None and col.scale is not None
    flags = pd.array(inst.frame[col.source].to_numpy(dtype=object), dtype="boolean")
    positions = inst.positions(col.group)
    out: list[dict[str, Any]] = []
    for key in keys:
        pos = _lookup(positions, key)
        sel = flags[pos]
        counts = {
            "failure": len(sel),
            "exclude": int((~sel.isna()).sum()),
        }
        k = int(sel.sum(skipna=True))
        cell: dict[str, Any] = {}
        for policy in col.policies:
            n = counts[col.nulls[policy]]
            cell[policy] = None if n == 0 else (col.scale * k) / n
        out.append(cell)
    return out


def _mean(col: Measured, inst: Instances, keys: list[Any]) -> list[dict[str, Any]]:
    """math.fsum of the non-null values (exclude) or of every row with null as 0.0 (zero)."""
    assert col.source is not None
    values = float_values(inst.frame[col.source])
    positions = inst.positions(col.group)
    out: list[dict[str, Any]] = []
    for key in keys:
        sel = values[_lookup(positions, key)]
        nulls = np.isnan(sel)
        cell: dict[str, Any] = {}
        for policy in col.policies:
            if col.nulls[policy] == "exclude":
                used = sel[~nulls].tolist()
            else:
                used = np.where(nulls, 0.0, sel).tolist()
            cell[policy] = None if not used else math.fsum(used) / len(used)
        out.append(cell)
    return out


def _single(
    col: Measured, inst: Instances, keys: list[Any], order: list[int], shown: list[str]
) -> list[dict[str, Any]]:
    """The one distinct non-null value of the source, as a string; ambiguous_value if more."""
    assert col.source is not None
    kind = inst.table.kinds[col.source]
    values = inst.frame[col.source].to_numpy(dtype=object)
    positions = inst.positions(col.group)
    out: list[dict[str, Any]] = [{} for _ in keys]
    for i in order:
        distinct = set()
        for v in values[_lookup(positions, keys[i])]:
            if is_null(v) or (kind == FLOATING and math.isnan(float(v))):
                continue
            distinct.add(v)
        if len(distinct) > 1:
            raise InputError(
                AMBIGUOUS_VALUE,
                inst.table.display,
                f"'{col.source}' (for '{col.name}') holds {len(distinct)} distinct values "
                f"for row id '{shown[i]}'",
            )
        out[i] = {NO_POLICY: format_value(distinct.pop(), kind) if distinct else None}
    return out


def _mean_of_columns(col: Measured, done: Recomputed, size: int) -> list[dict[str, Any]]:
    """math.fsum of the listed columns' values under the same policy, no-data ones left out."""
    out: list[dict[str, Any]] = []
    for i in range(size):
        cell: dict[str, Any] = {}
        for policy in col.policies:
            used = [done[name][i][policy] for name in col.columns]
            used = [v for v in used if v is not None]
            cell[policy] = None if not used else math.fsum(used) / len(used)
        out.append(cell)
    return out


def recompute(
    prereg: Prereg, board: Table, instances: Table, shown: list[str], order: list[int]
) -> Recomputed:
    """Every measured column's recomputed values (ambiguous_value raised here).

    `shown` are the written row ids, `order` the leaderboard positions in canonical order."""
    assert board.frame is not None
    keys = board.frame[prereg.row_id].to_numpy(dtype=object).tolist()
    inst = Instances(instances, prereg)
    done: Recomputed = {}
    for col in prereg.measured.values():
        if col.recipe == RATE:
            done[col.name] = _rate(col, inst, keys)
        elif col.recipe == MEAN:
            done[col.name] = _mean(col, inst, keys)
        elif col.recipe == SINGLE_VALUE:
            done[col.name] = _single(col, inst, keys, order, shown)

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
