"""Schema and key checks on the two tables, in the contract's order."""

from __future__ import annotations

import math
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .keys import chunk_codes, dictionary_form, row_codes
from .prereg.cells import Prereg
from .values import base_type, format_value, is_number_type

# Buckets of the quick duplicate-key test (few enough for Arrow's counting sort).
_MAX_BUCKETS = 4096


def leaderboard_names(pr: Prereg) -> list[str]:
    """Leaderboard columns the prereg names, in prereg order, without repeats."""
    names = [pr.row_id, *pr.structural, *pr.no_antecedent, *pr.measured]
    return list(dict.fromkeys(names))


def instance_names(pr: Prereg) -> list[str]:
    """Instance columns the prereg names, in prereg order, without repeats."""
    names = [pr.row_id, *pr.instance_key]
    if pr.group_by is not None:
        names.append(pr.group_by)
    names += [m.source for m in pr.measured.values() if m.source is not None]
    names += population_columns(pr)
    names += universe_columns(pr)
    return list(dict.fromkeys(names))


def universe_columns(pr: Prereg) -> list[str]:
    """The instance columns declared universes hold their ids in, in prereg order."""
    return [m.universe.column for m in pr.measured.values() if m.universe is not None]


def population_columns(pr: Prereg) -> list[str]:
    """The instance columns mean policies restrict their population by, in policy order."""
    found = [pol.population for pol in pr.policies.values() if pol.population is not None]
    return list(dict.fromkeys(found))


def aggregation_names(pr: Prereg) -> list[str]:
    """Instance columns the recipes read: row id, group column, sources."""
    names = [pr.row_id]
    if pr.group_by is not None:
        names.append(pr.group_by)
    names += [m.source for m in pr.measured.values() if m.source is not None]
    names += population_columns(pr)
    names += universe_columns(pr)
    return list(dict.fromkeys(names))


def missing_column(required: list[str], present: list[str], path: str) -> None:
    """missing_column for the first required name the table lacks."""
    have = set(present)
    for name in required:
        if name not in have:
            raise InputError("missing_column", path, f"no column {name!r}")


def undeclared_column(pr: Prereg, present: list[str], path: str) -> None:
    """undeclared_column for the first leaderboard column the prereg does not classify."""
    declared = {*pr.structural, *pr.no_antecedent, *pr.measured}
    for name in present:
        if name not in declared:
            raise InputError("undeclared_column", path, f"column {name!r} is not classified")


def duplicate_column(present: list[str], path: str) -> None:
    """duplicate_column for the first name that occurs twice."""
    seen: set[str] = set()
    for name in present:
        if name in seen:
            raise InputError("duplicate_column", path, f"column {name!r} occurs twice")
        seen.add(name)


def unsupported_types(
    pr: Prereg, lb_kinds: dict[str, str], lb_path: str, in_kinds: dict[str, str], in_path: str
) -> None:
    """unsupported_type: a leaderboard column (in file order), then an instance column the
    prereg names (in prereg order), of a type the contract does not read in that place.

    A label (structural or no_antecedent, not the row id) is never read as values: any
    type, its cells written empty when the kind is null or other."""
    labels = {*pr.structural, *pr.no_antecedent} - {pr.row_id}
    places = [(name, kind, lb_path) for name, kind in lb_kinds.items() if name not in labels]
    places += [(name, in_kinds[name], in_path) for name in instance_names(pr)]
    for name, kind, path in places:
        if kind in ("other", "null"):
            what = "the null type" if kind == "null" else "a type outside the contract's kinds"
            raise InputError("unsupported_type", path, f"column {name!r} has {what} here")


def nan_keys(columns: dict[str, pa.ChunkedArray], what: str, path: str) -> None:
    """bad_type for a NaN in a key column of kind floating (docs/contract.md: a NaN equals no
    key): the first such row in file order (its first such column in key order)."""
    first: tuple[int, str] | None = None
    for name, column in columns.items():
        if not pa.types.is_floating(base_type(column.type)):
            continue
        nan = pc.fill_null(pc.is_nan(column), False)
        if pc.any(nan).as_py():
            row = pc.indices_nonzero(nan.combine_chunks())[0].as_py()
            if first is None or row < first[0]:
                first = (row, name)
    if first is not None:
        row, name = first
        raise InputError("bad_type", path, f"{what} column {name!r} holds NaN at row {row}")


def _ieee(table: pa.Table, keys: tuple[str, ...]) -> pa.Table:
    """The key columns with -0.0 made 0.0 (IEEE's sum with +0.0), so that Arrow's hash,
    which tells their bits apart, compares floating keys as numbers (docs/contract.md)."""
    for name in keys:
        typ = table.column(name).type
        if pa.types.is_floating(typ):
            at = table.column_names.index(name)
            plus = pc.add(table.column(name), pa.scalar(0.0, typ))
            table = table.set_column(at, name, plus)
    return table


def duplicate_row_id(ids: list[Any], typ: pa.DataType, path: str) -> None:
    """duplicate_key if two leaderboard rows share a row id: the row's name as written
    (docs/contract.md, Values), so two floats written alike (1e-07 and 2e-07, both
    0.000000) are one id, as are 0.0 and -0.0; two nulls are one id too, and no text."""
    written = Counter(None if v is None else format_value(v, typ) for v in ids)
    dups = [w for w, n in written.items() if n > 1]
    if dups:
        shown = min("" if w is None else w for w in dups)
        raise InputError("duplicate_key", path, f"row id {shown!r} occurs more than once")


def _distinct_in_buckets(values: pa.ChunkedArray, buckets: pa.ChunkedArray) -> bool:
    """True if no two rows of the same bucket hold the same value (nulls equal, NaN equal).

    Each chunk's rows are ordered by bucket (a stable sort of a few distinct
    bucket codes, which Arrow counts); a bucket's values, gathered from every
    chunk, are then counted by Arrow's hash of the values, on threads: many small
    hash tables rather than one large one, and no copy of the whole column."""
    spans: dict[int, list[tuple[pa.Array, pa.Array]]] = {}
    for chunk, here in zip(values.chunks, buckets.chunks):  # chunks of the same lengths
        order = pc.sort_indices(here)
        counts = pc.value_counts(here)
        start = 0
        for code, size in sorted(zip(counts.field(0).to_pylist(), counts.field(1).to_pylist())):
            spans.setdefault(code, []).append((chunk, order.slice(start, size)))
            start += size

    def distinct(parts: list[tuple[pa.Array, pa.Array]]) -> bool:
        taken = pa.chunked_array([pc.take(chunk, rows) for chunk, rows in parts], values.type)
        return bool(pc.count_distinct(taken, mode="all").as_py() == len(taken))

    with ThreadPoolExecutor(max(1, min(pa.cpu_count(), 8))) as pool:
        return all(pool.map(distinct, spans.values()))


def _hashable_alone(typ: pa.DataType) -> bool:
    """Types whose values Arrow's hash compares exactly as the key codes do (no floats)."""
    return (
        pa.types.is_string(typ)
        or pa.types.is_large_string(typ)
        or pa.types.is_binary(typ)
        or pa.types.is_large_binary(typ)
        or pa.types.is_integer(typ)
    )


def _bucket_codes(columns: list[pa.ChunkedArray]) -> pa.ChunkedArray | None:
    """Codes of the dictionary columns' values, chunk by chunk; None if too many buckets.

    Two rows share a code iff they agree in every column (nulls equal), as in
    `row_codes`; the code range is the product of the dictionaries' sizes."""
    forms = [dictionary_form(column) for column in columns]
    widths = [len(dictionary) + 1 for _, dictionary in forms]  # + the null code
    if math.prod(widths) > _MAX_BUCKETS:
        return None
    for _, dictionary in forms:  # one code per value: no repeated or null entry
        if dictionary.null_count or pc.count_distinct(dictionary).as_py() != len(dictionary):
            return None
    layouts = {tuple(len(c) for c in column.chunks) for column, _ in forms}
    if len(layouts) != 1:
        return None
    chunks: list[pa.Array] = []
    for i in range(forms[0][0].num_chunks):
        code: pa.Array | None = None
        for (column, _), width in zip(forms, widths):
            more = chunk_codes(column.chunk(i), width - 1)
            code = more if code is None else pc.add(pc.multiply(code, width), more)
        assert code is not None
        chunks.append(code)
    return pa.chunked_array(chunks, pa.int64())


def _as_dictionary(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A string or binary column as a dictionary column, nulls as null indices (as the
    reader gives a column it reads with a dictionary); any other column as it is."""
    typ = column.type
    if (
        pa.types.is_string(typ)
        or pa.types.is_large_string(typ)
        or pa.types.is_binary(typ)
        or pa.types.is_large_binary(typ)
    ):
        return pc.dictionary_encode(column)
    return column


def _keys_distinct(table: pa.Table, keys: tuple[str, ...]) -> bool:
    """A quick test: True only if no two rows share the key (False decides nothing).

    Rows are cut into buckets by the key columns read with a dictionary (cheap
    codes, few of them); one other key column of a plain hashable type is then
    checked bucket by bucket. Otherwise the rows' key codes are, in buckets by
    their low bits."""
    coded = [k for k in keys if pa.types.is_dictionary(table.column(k).type)]
    rest = [k for k in keys if k not in coded]
    if coded and len(rest) == 1 and _hashable_alone(table.column(rest[0]).type):
        values = table.column(rest[0])
        buckets = _bucket_codes([table.column(k) for k in coded])
        if buckets is not None and tuple(len(c) for c in buckets.chunks) == tuple(
            len(c) for c in values.chunks
        ):
            return _distinct_in_buckets(values, buckets)
    codes = row_codes([_as_dictionary(table.column(k)) for k in keys]).combine_chunks()
    low = pc.bit_wise_and(codes, pa.scalar(_MAX_BUCKETS - 1, pa.int64()))
    return _distinct_in_buckets(pa.chunked_array([codes]), pa.chunked_array([low]))


def duplicate_instance_key(table: pa.Table, keys: tuple[str, ...], path: str) -> None:
    """duplicate_key if two instance rows share the instance key (nulls compare equal, a
    float as a number: 0.0 is -0.0)."""
    table = _ieee(table, keys)
    n = table.num_rows
    if n < 2:
        return
    if _keys_distinct(table, keys):
        return
    # some key repeats: the general check finds and reports it
    codes = row_codes([_as_dictionary(table.column(k)) for k in keys]).combine_chunks()
    ordered = pc.take(codes, pc.sort_indices(codes))
    same = pc.equal(ordered.slice(1), ordered.slice(0, n - 1))
    repeats = pc.sum(same).as_py() or 0
    if repeats == 0:
        return
    repeated = pc.unique(pc.filter(ordered.slice(1), same))
    first = pc.indices_nonzero(pc.is_in(codes, value_set=repeated))[0].as_py()
    shown = "|".join(str(table.column(k)[first].as_py()) for k in keys)
    raise InputError(
        "duplicate_key",
        path,
        f"{repeats} instance row(s) repeat an earlier key, first {shown!r} at row {first}",
    )


def leaderboard_types(pr: Prereg, schema: pa.Schema, path: str) -> None:
    """bad_type for a numeric measured column that is not integer or floating."""
    for m in pr.measured.values():
        if m.recipe == "single_value":
            continue
        typ = schema.field(m.name).type
        if not is_number_type(typ):
            raise InputError("bad_type", path, f"measured column {m.name!r} has type {typ}")


def type_kind(typ: pa.DataType) -> str:
    """The contract's kind of an Arrow type (boolean, integer, floating, string or other),
    for a table with no parquet footer of its own (a CSV under its declared types)."""
    typ = base_type(typ)
    if pa.types.is_boolean(typ):
        return "boolean"
    if pa.types.is_integer(typ):
        return "integer"
    if pa.types.is_floating(typ):
        return "floating"
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return "string"
    return "other"


def row_id_kinds(pr: Prereg, lb_schema: pa.Schema, in_schema: pa.Schema, path: str) -> None:
    """bad_type (instance table) if the row id column is of another kind than the leaderboard's."""
    lb_kind = type_kind(lb_schema.field(pr.row_id).type)
    in_kind = type_kind(in_schema.field(pr.row_id).type)
    if lb_kind != in_kind:
        raise InputError(
            "bad_type",
            path,
            f"row id column {pr.row_id!r} is {in_kind}, the leaderboard's is {lb_kind}",
        )


def instance_types(pr: Prereg, table: pa.Table, path: str) -> None:
    """bad_type for rate / mean sources of the wrong type, then infinite mean values."""
    for m in pr.measured.values():
        if m.source is None:
            continue
        typ = base_type(table.schema.field(m.source).type)
        if m.recipe == "rate" and not pa.types.is_boolean(base_type(typ)):
            raise InputError("bad_type", path, f"rate source {m.source!r} has type {typ}")
        if m.recipe == "mean" and not is_number_type(typ):
            raise InputError("bad_type", path, f"mean source {m.source!r} has type {typ}")
        for p in m.policies:
            pop = pr.policies[p].population if p in pr.policies else None
            if m.recipe == "mean" and pop is not None:
                ptyp = base_type(table.schema.field(pop).type)
                if not pa.types.is_boolean(ptyp):
                    raise InputError("bad_type", path, f"population column {pop!r} has type {ptyp}")
        if m.universe is not None:
            utyp = base_type(table.schema.field(m.universe.column).type)
            if not (pa.types.is_string(utyp) or pa.types.is_large_string(utyp)):
                raise InputError(
                    "bad_type", path, f"universe column {m.universe.column!r} has type {utyp}"
                )
    for m in pr.measured.values():
        if m.recipe != "mean" or m.source is None:
            continue
        col = table.column(m.source)
        if pa.types.is_floating(base_type(col.type)):
            if col.type != base_type(col.type):
                col = col.cast(base_type(col.type))
            if pc.any(pc.is_inf(col)).as_py():
                raise InputError(
                    "bad_type", path, f"mean source {m.source!r} holds an infinite value"
                )
