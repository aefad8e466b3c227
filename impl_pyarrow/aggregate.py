"""Grouping instance rows by (row id, group) with dictionary codes and one sort.

Rows are coded by (row id, group), sorted by code, and cut into runs; counts
come from cumulative sums in Arrow, and a mean takes one run of values at a
time to Python for `math.fsum`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .keys import encode
from .prereg import Prereg
from .values import python_list


@dataclass
class Groups:
    """Runs of the sorted instance rows; run i is one (row id, group value)."""

    starts: list[int]
    ends: list[int]
    index: dict[Any, list[int]]  # row id -> run indices
    group_of: list[Any]  # group value of run i
    n_valid: dict[str, list[int]] = field(default_factory=dict)
    n_true: dict[str, list[int]] = field(default_factory=dict)
    values: dict[str, pa.Array] = field(default_factory=dict)  # sorted, nulls kept
    distinct: dict[str, list[list[Any]]] = field(default_factory=dict)

    def indices(self, row_id: Any, group: Any | None) -> list[int]:
        """Runs of one row id, restricted to one group value if given."""
        found = self.index.get(row_id, [])
        if group is None:
            return found
        return [i for i in found if self.group_of[i] == group]

    def count(self, i: int) -> int:
        """Number of instance rows in run i."""
        return self.ends[i] - self.starts[i]


def _plain(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """Dictionary columns decoded to their value type."""
    if pa.types.is_dictionary(col.type):
        return col.cast(col.type.value_type)
    return col


def _nan_as_null(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """NaN in a floating column becomes null (`nan_in_sources: as_null`)."""
    if not pa.types.is_floating(col.type):
        return col
    if pa.types.is_float16(col.type):
        col = col.cast(pa.float32())
    return pc.if_else(pc.is_nan(col), pa.scalar(None, col.type), col)


def _run_sums(flags: pa.Array, ends: list[int]) -> list[int]:
    """Per run, how many of the sorted 0/1 flags are 1 (from one cumulative sum)."""
    if not ends:
        return []
    cumulative = pc.cumulative_sum(pc.cast(flags, pa.int64()))
    at_end = pc.take(cumulative, pa.array([e - 1 for e in ends], pa.int64())).to_pylist()
    out: list[int] = []
    before = 0
    for total in at_end:
        out.append(total - before)
        before = total
    return out


def _sources(pr: Prereg) -> dict[str, list[str]]:
    """Source columns per recipe, in prereg order, without repeats."""
    out: dict[str, list[str]] = {"rate": [], "mean": [], "single_value": []}
    for m in pr.measured.values():
        if m.source is not None and m.source not in out[m.recipe]:
            out[m.recipe].append(m.source)
    return out


def aggregate(pr: Prereg, table: pa.Table) -> Groups:
    """Sort the instance rows by (row id, group) once and summarise every source per run."""
    id_codes, id_dict = encode(table.column(pr.row_id))
    if pr.group_by is not None:
        grp_codes, grp_dict = encode(table.column(pr.group_by))
        n_grp = len(grp_dict)
        codes = pc.add(pc.multiply(id_codes, pa.scalar(n_grp, pa.int64())), grp_codes)
    else:
        grp_dict, n_grp, codes = pa.array([None], pa.null()), 1, id_codes
    order = pc.sort_indices(codes)
    sorted_codes = pc.take(codes, order).combine_chunks()

    runs = pc.run_end_encode(sorted_codes)
    ends = runs.run_ends.to_pylist()
    starts = [0, *ends[:-1]]
    run_codes = runs.values.to_pylist()
    ids = id_dict.to_pylist()
    grps = grp_dict.to_pylist()
    index: dict[Any, list[int]] = {}
    group_of: list[Any] = []
    for i, code in enumerate(run_codes):
        rid, g = divmod(code, n_grp)
        group_of.append(grps[g])
        if ids[rid] is not None:
            index.setdefault(ids[rid], []).append(i)
    groups = Groups(starts=starts, ends=ends, index=index, group_of=group_of)

    sources = _sources(pr)
    for s in sources["rate"]:
        col = pc.take(_plain(table.column(s)), order).combine_chunks()
        groups.n_true[s] = _run_sums(pc.fill_null(col, pa.scalar(False, pa.bool_())), ends)
        groups.n_valid[s] = _run_sums(pc.is_valid(col), ends)
    for s in sources["mean"]:
        col = _nan_as_null(_plain(table.column(s)))
        groups.values[s] = pc.take(col, order).combine_chunks()
    for s in sources["single_value"]:
        value_codes, dictionary = encode(table.column(s))
        # NaN counts as null (`nan_in_sources: as_null`)
        values = [
            None if isinstance(v, float) and math.isnan(v) else v for v in python_list(dictionary)
        ]
        run_sorted = pc.take(value_codes, order).combine_chunks()
        groups.distinct[s] = [
            [values[k] for k in pc.unique(run_sorted.slice(a, b - a)).to_pylist()]
            for a, b in zip(starts, ends)
        ]
    return groups


def run_values(groups: Groups, source: str, runs: list[int]) -> list[float]:
    """The non-null values of a mean source in the given runs, as Python floats."""
    column = groups.values[source]
    floating = pa.types.is_floating(column.type)
    out: list[float] = []
    for i in runs:
        chunk = pc.drop_null(column.slice(groups.starts[i], groups.count(i))).to_pylist()
        out.extend(chunk if floating else (float(v) for v in chunk))
    return out
