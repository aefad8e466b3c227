"""Grouping instance rows by (row id, group value) with dictionary codes.

The rows are read batch by batch; in each batch the (row id, group) codes are
cut into runs (Arrow's run-end encoding), and a group is the list of its runs,
its pieces. Counts come from Arrow per piece; a mean's values go to Python as
the piece's own buffer for `math.fsum`. Every result is independent of the
order of the rows (counts, sets of values, the correctly rounded sum), so rows
in any order give the same groups; a bundle whose rows are not clustered by
(row id, group) has its source columns gathered in the order of a stable sort of
the codes first, so that the pieces stay few (one per group).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from . import decimals
from .keys import chunk_codes, dictionary_form
from .prereg.cells import Prereg
from .values import python_list

# memoryview formats of the numeric buffers a mean reads (native byte order and sizes)
_FORMATS: dict[pa.DataType, str] = {
    pa.float64(): "d",
    pa.float32(): "f",
    pa.int8(): "b",
    pa.int16(): "h",
    pa.int32(): "i",
    pa.int64(): "q",
    pa.uint8(): "B",
    pa.uint16(): "H",
    pa.uint32(): "I",
    pa.uint64(): "Q",
}


@dataclass
class Groups:
    """Instance rows per (row id, group value); group i's rows lie in its pieces."""

    index: dict[Any, list[int]]  # row id -> group indices
    group_of: list[Any]  # group value of group i
    rows: list[int]  # number of instance rows of group i
    n_valid: dict[str, list[int]] = field(default_factory=dict)
    n_true: dict[str, list[int]] = field(default_factory=dict)
    values: dict[str, list[list[pa.Array]]] = field(default_factory=dict)  # mean source pieces
    decimals: dict[str, list[int]] = field(default_factory=dict)  # mean source: most printed
    distinct: dict[str, list[list[Any]]] = field(default_factory=dict)

    def indices(self, row_id: Any, group: Any | None) -> list[int]:
        """Groups of one row id, restricted to one group value if given."""
        found = self.index.get(row_id, [])
        if group is None:
            return found
        return [i for i in found if self.group_of[i] == group]

    def count(self, i: int) -> int:
        """Number of instance rows in group i."""
        return self.rows[i]


def _plain(col: pa.ChunkedArray) -> pa.ChunkedArray:
    """Dictionary columns decoded to their value type."""
    if pa.types.is_dictionary(col.type):
        return col.cast(col.type.value_type)
    return col


def _sources(pr: Prereg) -> dict[str, list[str]]:
    """Source columns per recipe, in prereg order, without repeats."""
    out: dict[str, list[str]] = {"rate": [], "mean": [], "single_value": []}
    for m in pr.measured.values():
        if m.source is not None and m.source not in out[m.recipe]:
            out[m.recipe].append(m.source)
    for m in pr.measured.values():  # a universe's ids: their distinct values per group too
        if m.universe is not None and m.universe.column not in out["single_value"]:
            out["single_value"].append(m.universe.column)
    return out


def population_key(source: str, population: str | None) -> str:
    """The name a mean source's pieces go by, within one policy's population."""
    return source if population is None else f"{source}|not_null:{population}"


def _populations(pr: Prereg) -> list[tuple[str, str]]:
    """(mean source, population column) pairs some policy of a mean column restricts to."""
    pairs: list[tuple[str, str]] = []
    for m in pr.measured.values():
        if m.recipe != "mean" or m.source is None:
            continue
        for p in m.policies:
            pop = pr.policies[p].population
            if pop is not None and (m.source, pop) not in pairs:
                pairs.append((m.source, pop))
    return pairs


def _numbers(arr: pa.Array) -> Sequence[float]:
    """The values of a null-free numeric array as Python floats (read from its buffer)."""
    if len(arr) == 0:
        return ()
    fmt = _FORMATS[arr.type]
    width = arr.type.bit_width // 8
    raw = memoryview(arr.buffers()[1]).cast("B")
    view = raw[arr.offset * width : (arr.offset + len(arr)) * width].cast(fmt)
    if fmt in ("d", "f"):
        return view
    return [float(v) for v in view]  # integers, as doubles


def _mean_piece(arr: pa.Array) -> Sequence[float]:
    """The non-null, non-NaN values of one piece of a mean source (NaN counts as null)."""
    if arr.null_count:
        arr = pc.drop_null(arr)
    if pa.types.is_floating(arr.type) and len(arr):
        nan = pc.is_nan(arr)
        if nan.true_count:
            arr = pc.filter(arr, pc.invert(nan))
    return _numbers(arr)


def _codes(batch: pa.RecordBatch, id_size: int, grp_size: int | None) -> pa.Array:
    """(row id, group) codes of one batch: id code * (grp_size + 1) + group code.

    Column 0 holds the row ids, column 1 the groups (if grp_size is not None),
    both in `dictionary_form`; a null gets the code one past its dictionary."""
    codes = chunk_codes(batch.column(0), id_size)
    if grp_size is None:
        return codes
    grp = chunk_codes(batch.column(1), grp_size)
    return pc.add(pc.multiply(codes, pa.scalar(grp_size + 1, pa.int64())), grp)


def _pieces(
    batches: list[pa.RecordBatch], id_size: int, grp_size: int | None, limit: int | None = None
) -> list[tuple[int, int, int, int]] | None:
    """(code, batch, offset, length) of every run of equal (row id, group) codes.

    None as soon as there are more than `limit` runs (counted before any goes to Python)."""
    encoded = []
    found = 0
    for batch in batches:
        encoded.append(pc.run_end_encode(_codes(batch, id_size, grp_size)))
        found += len(encoded[-1].run_ends)
        if limit is not None and found > limit:
            return None
    out: list[tuple[int, int, int, int]] = []
    for b, runs in enumerate(encoded):
        start = 0
        for code, end in zip(runs.values.to_pylist(), runs.run_ends.to_pylist()):
            out.append((code, b, start, end - start))
            start = end
    return out


def _clustered(pieces: int, codes: int, batches: int) -> bool:
    """Few pieces per group: the rows are (mostly) clustered by (row id, group)."""
    return pieces <= 4 * (codes + batches) + 256


def _take(column: pa.ChunkedArray, order: pa.Array) -> pa.Array:
    """The column's values in the given order; a dictionary column keeps its very dictionary.

    The chunks are joined first: a take from one array is a plain gather."""
    if not pa.types.is_dictionary(column.type) or column.num_chunks == 0:
        return pc.take(column.combine_chunks(), order)
    dictionary = column.chunks[0].dictionary
    indices = pa.chunked_array([c.indices for c in column.chunks], column.type.index_type)
    return pa.DictionaryArray.from_arrays(pc.take(indices.combine_chunks(), order), dictionary)


def _sorted_by_code(
    work: pa.Table, id_size: int, grp_size: int | None
) -> tuple[pa.RecordBatch, list[tuple[int, int, int, int]]]:
    """The work table's source columns with the rows sorted by (row id, group) code, and
    the runs of equal codes in it, (code, 0, offset, length), as `_pieces` gives them.

    A stable sort of the codes alone (few distinct values: Arrow counts them), then
    one gather per source column; the row id and group columns are not needed again.
    The runs follow from the number of rows of each code, in ascending code order."""
    codes = [_codes(batch, id_size, grp_size) for batch in work.to_batches()]
    joined = pa.concat_arrays(codes) if codes else pa.array([], pa.int64())
    del codes
    order = pc.sort_indices(joined)
    counts = pc.value_counts(joined)
    del joined
    pieces: list[tuple[int, int, int, int]] = []
    start = 0
    for code, n in sorted(zip(counts.field(0).to_pylist(), counts.field(1).to_pylist())):
        pieces.append((code, 0, start, n))
        start += n
    names = [n for n in work.column_names if n not in ("id", "group")]
    columns = [_take(work.column(n), order) for n in names]
    return pa.RecordBatch.from_arrays(columns, names=names), pieces


def aggregate(pr: Prereg, table: pa.Table) -> Groups:
    """Cut the instance rows into groups by (row id, group) and summarise every source."""
    ids_col, id_dict = dictionary_form(table.column(pr.row_id))
    ids = [*id_dict.to_pylist(), None]  # code len(dictionary): a null id
    columns: dict[str, pa.ChunkedArray] = {"id": ids_col}
    grp_size: int | None = None
    grps: list[Any] = [None]
    if pr.group_by is not None:
        grp_col, grp_dict = dictionary_form(table.column(pr.group_by))
        grp_size = len(grp_dict)
        grps = [*grp_dict.to_pylist(), None]  # code len(dictionary): a null group
        columns["group"] = grp_col
    id_size, n_grp = len(id_dict), len(grps)

    sources = _sources(pr)
    single_values: dict[str, list[Any]] = {}
    for s in sources["rate"]:
        columns[f"rate:{s}"] = _plain(table.column(s))
    for s in sources["mean"]:
        col = _plain(table.column(s))
        if pa.types.is_float16(col.type):
            col = col.cast(pa.float32())
        columns[f"mean:{s}"] = col
    pairs = _populations(pr)
    for s, pop in pairs:  # the source, null wherever the population column is null
        recorded = pc.is_valid(_plain(table.column(pop)))
        values = columns[f"mean:{s}"]
        nulls = pa.nulls(len(values), values.type)
        columns[f"mean:{population_key(s, pop)}"] = pc.if_else(recorded, values, nulls)
        columns.setdefault(f"rate:{pop}", _plain(table.column(pop)))
    for s in sources["single_value"]:
        col, dictionary = dictionary_form(table.column(s))
        # NaN counts as null (`nan_in_sources: as_null`)
        single_values[s] = [
            None if isinstance(v, float) and math.isnan(v) else v for v in python_list(dictionary)
        ] + [None]
        columns[f"single:{s}"] = col
    work = pa.table(columns)

    batches = work.to_batches()
    # Rows not clustered by (row id, group) are sorted first: more runs than the
    # possible codes allow (found before any run goes to Python), or than the codes found.
    possible = (id_size + 1) * (1 if grp_size is None else grp_size + 1)
    pieces = _pieces(batches, id_size, grp_size, 4 * (possible + len(batches)) + 256)
    if pieces is None or not _clustered(len(pieces), len({p[0] for p in pieces}), len(batches)):
        del pieces
        batch, pieces = _sorted_by_code(work, id_size, grp_size)
        del work, columns
        batches = [batch]
    assert pieces is not None
    names = batches[0].schema.names if batches else []

    group_at: dict[int, int] = {}
    index: dict[Any, list[int]] = {}
    group_of: list[Any] = []
    members: list[list[tuple[int, int, int]]] = []
    for code, b, offset, length in pieces:
        g = group_at.get(code)
        if g is None:
            g = group_at[code] = len(group_of)
            rid, k = divmod(code, n_grp)
            group_of.append(grps[k])
            members.append([])
            if ids[rid] is not None:  # a dict's key: 0.0 and -0.0 one row id (IEEE)
                index.setdefault(ids[rid], []).append(g)
        members[g].append((b, offset, length))
    groups = Groups(
        index=index,
        group_of=group_of,
        rows=[sum(length for _, _, length in ps) for ps in members],
    )

    def slices(name: str, ps: list[tuple[int, int, int]]) -> list[pa.Array]:
        at = names.index(name)
        return [batches[b].column(at).slice(offset, length) for b, offset, length in ps]

    counted = list(dict.fromkeys([*sources["rate"], *(pop for _, pop in pairs)]))
    for s in counted:
        n_true: list[int] = []
        n_valid: list[int] = []
        for ps in members:
            arrays = slices(f"rate:{s}", ps)
            n_true.append(sum(a.true_count for a in arrays))
            n_valid.append(sum(len(a) - a.null_count for a in arrays))
        groups.n_true[s] = n_true
        groups.n_valid[s] = n_valid
    restricted = [population_key(s, pop) for s, pop in pairs]
    starts = list(accumulate((b.num_rows for b in batches), initial=0))  # each batch's first row
    for s in [*sources["mean"], *restricted]:  # as they are; nulls and NaN go when read
        groups.values[s] = [slices(f"mean:{s}", ps) for ps in members]
        if batches:  # each value printed once, whatever the cells it falls in
            at = names.index(f"mean:{s}")
            places = decimals.per_row(
                pa.chunked_array([b.column(at) for b in batches]), pr.chance.epsilon
            )
            groups.decimals[s] = [
                decimals.most([places.slice(starts[b] + offset, n) for b, offset, n in ps])
                for ps in members
            ]
    for s in sources["single_value"]:
        values = single_values[s]
        null_code = len(values) - 1
        found: list[list[Any]] = []
        for ps in members:
            codes: list[Any] = []
            for a in slices(f"single:{s}", ps):
                for k in pc.unique(a.indices).to_pylist():
                    code = null_code if k is None else k
                    if code not in codes:
                        codes.append(code)
            found.append([values[k] for k in codes])
        groups.distinct[s] = found
    return groups


def run_decimals(groups: Groups, source: str, runs: list[int]) -> int:
    """The most decimals a value of a mean source prints in the given groups (0 for none)."""
    return max((groups.decimals[source][i] for i in runs), default=0)


def run_values(groups: Groups, source: str, runs: list[int]) -> tuple[list[Sequence[float]], int]:
    """The non-null values of a mean source in the given groups (in pieces), and their number."""
    chunks = [_mean_piece(piece) for i in runs for piece in groups.values[source][i]]
    return chunks, sum(len(c) for c in chunks)
