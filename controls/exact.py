"""The controls' own arithmetic: exact rationals from the unperturbed bundle.

Shares nothing with either contestant: polars reads, Fractions compute.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache, partial
from pathlib import Path

import polars as pl

from audit.bundles import parquet_stored
from audit.bundles.values_text import by_type
from audit.cells.record import Column, Prereg
from controls.keys import RowIds, in_group

Value = Fraction | str | None  # None: no data


class ByRow:
    """The instance rows, with each leaderboard row's own rows filtered out once.

    A prediction looks at one or two rows many times; filtering ten million
    rows for each look costs seconds, a lookup nothing. A row is named by its id's
    text and found by its id's value (controls/keys.py): ``ids``, the leaderboard's
    row ids (the instance table's own if not given)."""

    def __init__(self, frame: pl.DataFrame, doc: Prereg, ids: RowIds | None = None) -> None:
        self.all = frame
        self.row_id = doc.bundle.row_id
        self.group_by = doc.bundle.group_by
        self.ids = ids or RowIds(frame.get_column(self.row_id).unique(maintain_order=True))
        self.rows: dict[str, pl.DataFrame] = {}

    def frame(self, row: str, group: str | None) -> pl.DataFrame:
        if row not in self.rows:
            self.rows[row] = self.all.filter(self.ids.is_row(row, self.row_id))
        part = self.rows[row]
        if group is None:
            return part
        return part.filter(in_group(self.group_by, self.all.schema[self.group_by], group))

    def counts(self, group: str, where: pl.Expr) -> dict[str, int]:
        """Per row id (text): how many of the row's instances of ``group`` satisfy ``where``."""
        grouped = in_group(self.group_by, self.all.schema[self.group_by], group)
        kept = self.all.lazy().filter(grouped & where)
        return self.ids.count_by_text(kept, self.row_id)  # one pass, not one per row


def read_bundle(bundle: str, doc: Prereg) -> tuple[pl.DataFrame, ByRow]:
    """The leaderboard, and the instance columns the method reads, split by row id; a
    column of kind integer as the integers the file stores, where polars reads one
    otherwise (an Arrow duration: audit/bundles/parquet_stored.py)."""
    b = doc.bundle
    lb = parquet_stored.read(Path(bundle) / b.leaderboard)
    needed = {b.row_id, b.group_by, *b.instance_key}
    needed |= {s.source for s in doc.measured.values() if s.source is not None}
    needed |= {c for c in (doc.population_of(p) for p in doc.policies) if c is not None}
    path = Path(bundle) / b.instances
    present = pl.read_parquet_schema(path)
    inst = parquet_stored.read(path, [c for c in present if c in needed])
    floats = [c for c, t in inst.schema.items() if t.is_float()]
    inst = inst.with_columns([pl.col(c).fill_nan(None) for c in floats])  # NaN counts as null
    # in file order: whoever needs the instance key order sorts its rows
    return lb, ByRow(inst, doc, RowIds(lb.get_column(b.row_id)))


def bundle_reader(bundle: str, doc: Prereg) -> Callable[[], tuple[pl.DataFrame, ByRow]]:
    """read_bundle at the first call, the same tables after (every control of a run
    predicts from the same unperturbed bundle; nothing here changes them)."""
    return cache(partial(read_bundle, bundle, doc))


def row_ids(lb: pl.DataFrame, doc: Prereg) -> list[str]:
    """The leaderboard's row ids' texts (controls/keys.py), in code point order."""
    return RowIds(lb.get_column(doc.bundle.row_id)).texts()


def in_population(frame: pl.DataFrame, doc: Prereg, policy: str) -> pl.DataFrame:
    """The rows a mean under ``policy`` is taken over: all, or those its population keeps."""
    column = doc.population_of(policy)
    return frame if column is None else frame.filter(pl.col(column).is_not_null())


def fixed_of(spec: Column) -> int | None:
    """A rate or mean column's declared denominator: N of {fixed: N}, the number of ids of
    {universe: ...} (the contestants refuse a row whose ids do not fit it); None: the
    rows listed."""
    return None if spec.denominator is None else spec.denominator.count()


def denominator(frame: pl.DataFrame, source: str, nulls: str, fixed: int | None = None) -> int:
    """n of a rate or mean over the frame's rows. A declared {fixed: N} makes a row that
    lists any instance N instances, the unlisted ones null (counted by failure and
    zero, left out by exclude)."""
    values = frame.get_column(source)
    if nulls in ("failure", "zero"):
        return fixed if fixed is not None and values.len() else values.len()
    return values.len() - values.null_count()


def rate(
    frame: pl.DataFrame, source: str, scale: int, nulls: str, fixed: int | None = None
) -> Value:
    n = denominator(frame, source, nulls, fixed)
    k = int(frame.get_column(source).fill_null(False).sum())
    return None if n == 0 else Fraction(scale * k, n)


def exact_sum(values: list[float] | list[int]) -> Fraction:
    """The exact sum of doubles (or integers): each is m / 2**k, so one common denominator."""
    ratios = [v.as_integer_ratio() for v in values]
    den = max((d for _, d in ratios), default=1)
    return Fraction(sum(m * (den // d) for m, d in ratios), den)


_SCALED = 100  # binary digits the scaled values may have: n < 2**26 of them sum below 2**126


def series_sum(values: pl.Series) -> Fraction:
    """The exact sum of a column of doubles (no nulls): every value times one power of
    two 2**k that makes each a whole number (k from the smallest value's binary
    exponent: a double is a 53-bit whole number times 2**(e - 53)), summed as 128-bit
    integers, over 2**k. Values too far apart for that, infinities or too many values
    go one by one (exact_sum)."""
    if not values.dtype.is_float() or values.len() == 0 or values.len() >= 1 << 26:
        return exact_sum(values.to_list())
    size = values.abs()
    low, high = size.filter(size > 0).min(), size.max()
    if low is None:  # all zero
        return Fraction(0)
    k = max(0, 53 - math.frexp(low)[1])
    if not math.isfinite(high) or k > 1023 or math.frexp(high)[1] + k > _SCALED:
        return exact_sum(values.to_list())
    whole = (values.cast(pl.Float64) * 2.0**k).cast(pl.Int128)  # scaling by 2**k is exact
    return Fraction(int(whole.sum()), 2**k)


def mean(
    frame: pl.DataFrame,
    source: str,
    nulls: str,
    scale: int = 1,
    fixed: int | None = None,
    total: bool = False,
) -> Value:
    """A mean (scale times it), or with ``total`` the sum (recipe sum: a mean's rows and
    nulls, no division); no data when n is 0."""
    n = denominator(frame, source, nulls, fixed)
    s = series_sum(frame.get_column(source).drop_nulls())
    if n == 0:
        return None
    return s if total else scale * s / n


def direct(spec: Column, frame: pl.DataFrame, nulls: str, in_population: bool = False) -> Value:
    """A rate, mean or sum column's exact value over the frame (its population already
    taken, ``in_population``: a declared denominator then counts nothing unlisted)."""
    fixed = None if in_population else fixed_of(spec)
    assert spec.source is not None
    if spec.recipe == "rate":
        assert spec.scale is not None
        return rate(frame, spec.source, spec.scale, nulls, fixed)
    return mean(frame, spec.source, nulls, spec.mean_scale, fixed, spec.recipe == "sum")


def cell(
    inst: ByRow,
    doc: Prereg,
    row: str,
    column: str,
    policy: str,
    overrides: dict[tuple[str, str], Value] | None = None,
) -> Value:
    """Exact value of one cell under one policy; ``overrides`` replace component cells."""
    if overrides and (column, policy) in overrides:
        return overrides[(column, policy)]
    spec = doc.measured[column]
    recipe = spec.recipe
    if recipe == "single_value":
        values = inst.frame(row, None).get_column(str(spec.source)).drop_nulls().unique()
        # as the contestants write it (a float 1.5 `1.500000`, a boolean `true`), not str
        return None if values.len() == 0 else by_type(values[0])
    if recipe == "mean_of_columns":
        parts = [cell(inst, doc, row, c, policy, overrides) for c in spec.columns]
        present = [p for p in parts if p is not None]
        return None if not present else sum(present, Fraction(0)) / len(present)  # type: ignore[arg-type]
    nulls = doc.policies[policy].nulls
    frame = inst.frame(row, spec.group)
    if recipe == "rate":
        return direct(spec, frame, nulls)
    kept = in_population(frame, doc, policy)
    return direct(spec, kept, nulls, doc.population_of(policy) is not None)


def policies_of(doc: Prereg, column: str) -> list[str]:
    return doc.measured[column].policies_or_dash()


def fmt6(value: Value, signed: bool = False) -> str:
    """Six decimals, half to even, of an exact value; text as is; empty for no data."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    units = round(value * 1_000_000)  # Fraction rounds half to even
    sign = "-" if units < 0 else ("+" if signed else "")
    units = abs(units)
    return f"{sign}{units // 1_000_000}.{units % 1_000_000:06d}"
