"""The instance table at scale: only the columns the prereg names, one row group at a time.

Nothing is held as one Python object per row for the whole table. Per column:
- the row id, the group column and single_value sources become integer codes
  into a dictionary of their distinct values (string columns arrive
  dictionary-encoded from the file wherever the row group stores them so);
- the instance key becomes one 64-bit hash per row, enough to prove that no
  key repeats (a repeat, or a collision, sends the check to the exact path);
- mean sources become doubles (NaN for null and for NaN), rate sources two
  boolean arrays (true, non-null).
The recipes then work on rows sorted once by (row id, group): every
(row id, group) is one contiguous run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import fastparquet
import numpy as np
import pandas as pd

from .checks import duplicate_keys
from .errors import BAD_TYPE, UNREADABLE, InputError
from .prereg import MEAN, RATE, SINGLE_VALUE, Prereg
from .read import Table, load_table
from .values import BOOLEAN, NUMERIC_KINDS, STRING, is_null

NULL = -1
NULL_HASH = np.uint64(2**64 - 1)  # every missing value, whichever way the reader gave it
# how pandas hashes None, NaN and pd.NA in an object array (categorize=False)
_NULL_HASHES = pd.util.hash_array(np.array([None, np.nan, pd.NA], dtype=object), categorize=False)
_MIX = np.uint64(1_000_003)
_EMPTY = np.empty(0, dtype=np.int64)


class Encoder:
    """A growing dictionary: distinct non-null values of a column, each with its code."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.values: list[Any] = []
        self.index: dict[Any, int] = {}

    def encode(self, local: np.ndarray, uniques: Any) -> np.ndarray:
        """Global codes for a row group's local codes (-1: null) into its own uniques."""
        remap = np.empty(len(uniques), dtype=np.int32)
        for j, value in enumerate(uniques):
            if self.kind == STRING and isinstance(value, bytes):
                value = value.decode("utf-8")
            code = self.index.get(value)
            if code is None:
                code = self.index[value] = len(self.values)
                self.values.append(value)
            remap[j] = code
        out = np.full(len(local), NULL, dtype=np.int32)
        hit = local >= 0
        out[hit] = remap[local[hit]]
        return out

    def code(self, value: Any) -> int | None:
        """The code of a value, None if no row holds it (null never matches)."""
        if is_null(value):
            return None
        try:
            return self.index.get(value)
        except TypeError:  # unhashable: never matches
            return None


@dataclass
class Instances:
    """The instance table as codes, hashes and numeric arrays (see the module docstring)."""

    table: Table
    path: str
    rows: int
    codes: dict[str, np.ndarray] = field(default_factory=dict)
    encoders: dict[str, Encoder] = field(default_factory=dict)
    key_hash: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.uint64))
    numbers: dict[str, np.ndarray] = field(default_factory=dict)
    flags: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def _roles(table: Table, prereg: Prereg) -> tuple[list[str], list[str], list[str], list[str]]:
    """(encoded, key, mean, rate) column names, each without repeats."""
    encoded = [prereg.row_id, prereg.group_by]
    mean: list[str] = []
    rate: list[str] = []
    for col in prereg.measured.values():
        if col.source is None:
            continue
        kind = table.kinds[col.source]
        if col.recipe == SINGLE_VALUE:
            encoded.append(col.source)
        elif col.recipe == MEAN and kind in NUMERIC_KINDS:
            mean.append(col.source)
        elif col.recipe == RATE and kind == BOOLEAN:
            rate.append(col.source)
    return _unique(encoded), _unique(prereg.instance_key), _unique(mean), _unique(rate)


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _local_codes(column: Any) -> tuple[np.ndarray, Any]:
    """(codes, uniques) of one row group's column; -1 for null (NaN counts as null)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        return np.asarray(cat.codes), cat.categories.to_numpy(dtype=object)
    codes, uniques = pd.factorize(column.to_numpy(dtype=object))
    return codes, uniques


def _hash(column: Any) -> np.ndarray:
    """A 64-bit hash per row (equal values, equal hashes; every null the same)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        codes = np.asarray(cat.codes)
        by_value = pd.util.hash_array(cat.categories.to_numpy(dtype=object), categorize=False)
        out = np.full(len(codes), NULL_HASH, dtype=np.uint64)
        hit = codes >= 0
        out[hit] = by_value[codes[hit]]
        return out
    out = pd.util.hash_array(column.to_numpy(dtype=object), categorize=False)
    # (a string that reads "None" or "nan" joins the nulls: a collision, settled exactly)
    out[np.isin(out, _NULL_HASHES)] = NULL_HASH
    return out


def _floats(column: Any) -> np.ndarray:
    """A numeric column as doubles, null and NaN as NaN."""
    if column.dtype == object:
        return np.array([math.nan if is_null(v) else float(v) for v in column], dtype=np.float64)
    return column.to_numpy(dtype=np.float64, na_value=np.nan)


def _flags(column: Any) -> tuple[np.ndarray, np.ndarray]:
    """(true, non-null) of a boolean column."""
    values = column.to_numpy(dtype=object) if column.dtype == object else column
    arr = pd.array(values, dtype="boolean")
    return arr.to_numpy(dtype=bool, na_value=False), ~np.asarray(arr.isna())


def _read_group(pf: Any, i: int, names: list[str], categories: list[str]) -> pd.DataFrame:
    """One row group's columns; string columns as categoricals where the group allows."""
    sub = pf[i]
    dictionary = {
        c.meta_data.path_in_schema[0]
        for c in pf.row_groups[i].columns
        if c.meta_data.dictionary_page_offset is not None
    }
    cats = [n for n in categories if n in dictionary]
    try:
        return sub.to_pandas(columns=names, categories=cats, index=False)
    except (TypeError, ValueError, RuntimeError):
        if not cats:
            raise
        # a page fell back from dictionary encoding: read this group's strings as values
        return sub.to_pandas(columns=names, index=False)


def load(table: Table, path: str, prereg: Prereg) -> Instances:
    """Read the needed columns row group by row group (unreadable on failure)."""
    encoded, key, mean, rate = _roles(table, prereg)
    names = list(dict.fromkeys([*encoded, *key, *mean, *rate]))
    strings = [n for n in names if table.kinds[n] == STRING]
    try:
        pf = fastparquet.ParquetFile(path, verify=True)
        total = sum(rg.num_rows for rg in pf.row_groups)
        inst = Instances(table, path, total)
        for n in encoded:
            inst.encoders[n] = Encoder(table.kinds[n])
            inst.codes[n] = np.empty(total, dtype=np.int32)
        inst.key_hash = np.zeros(total, dtype=np.uint64)
        for n in mean:
            inst.numbers[n] = np.empty(total, dtype=np.float64)
        for n in rate:
            inst.flags[n] = (np.empty(total, dtype=bool), np.empty(total, dtype=bool))
        start = 0
        for i, rg in enumerate(pf.row_groups):
            if rg.num_rows == 0:
                continue
            frame = _read_group(pf, i, names, strings)
            if len(frame) != rg.num_rows or list(frame.columns) != names:
                raise ValueError("column layout not supported")
            end = start + rg.num_rows
            for n in encoded:
                local, uniques = _local_codes(frame[n])
                inst.codes[n][start:end] = inst.encoders[n].encode(local, uniques)
            acc = np.zeros(rg.num_rows, dtype=np.uint64)
            for n in key:
                acc = (acc * _MIX) ^ _hash(frame[n])
            inst.key_hash[start:end] = acc
            for n in mean:
                inst.numbers[n][start:end] = _floats(frame[n])
            for n in rate:
                true, valid = _flags(frame[n])
                inst.flags[n][0][start:end] = true
                inst.flags[n][1][start:end] = valid
            start = end
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any read failure means unreadable
        raise InputError(UNREADABLE, table.display, f"cannot read parquet data: {exc}") from None
    return inst


def check_duplicate_keys(inst: Instances, prereg: Prereg) -> None:
    """duplicate_key for the instance key, exactly as the whole-table check words it.

    Distinct hashes prove distinct keys; a repeated hash (a repeated key, or
    a collision) rereads the key columns and runs the exact check."""
    ordered = np.sort(inst.key_hash)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    table = load_table(inst.table.display, inst.path, columns=list(prereg.instance_key))
    duplicate_keys(table, list(prereg.instance_key), "instance key")


def check_types(inst: Instances, prereg: Prereg) -> None:
    """bad_type for a rate source not boolean, a mean source not numeric or holding infinities."""
    table = inst.table
    for col in prereg.measured.values():
        if col.source is None:
            continue
        kind = table.kinds[col.source]
        if col.recipe == RATE and kind != BOOLEAN:
            raise InputError(
                BAD_TYPE,
                table.display,
                f"rate source '{col.source}' (for '{col.name}') is {kind}, not boolean",
            )
        if col.recipe == MEAN:
            if kind not in NUMERIC_KINDS:
                raise InputError(
                    BAD_TYPE,
                    table.display,
                    f"mean source '{col.source}' (for '{col.name}') is {kind}, "
                    "not integer or floating",
                )
            if np.isinf(inst.numbers[col.source]).any():
                raise InputError(
                    BAD_TYPE,
                    table.display,
                    f"mean source '{col.source}' (for '{col.name}') holds an infinite value",
                )


class Runs:
    """Instance rows sorted once by (row id code, group code); rows with a null row id dropped.

    Run (r, g) is rows ``order[starts[r * width + g] : starts[r * width + g + 1]]``;
    group code ``width - 1`` stands for a null group value."""

    def __init__(self, inst: Instances, prereg: Prereg) -> None:
        rid = inst.codes[prereg.row_id]
        grp = inst.codes[prereg.group_by]
        self.groups = inst.encoders[prereg.group_by]
        self.ids = inst.encoders[prereg.row_id]
        self.width = len(self.groups.values) + 1
        runs = len(self.ids.values) * self.width
        key_type = np.int16 if runs < 2**15 else np.int32 if runs < 2**31 else np.int64
        kept = None if (rid >= 0).all() else np.flatnonzero(rid >= 0)
        if kept is not None:
            rid, grp = rid[kept], grp[kept]
        key = rid.astype(key_type) * key_type(self.width)
        key += np.where(grp >= 0, grp, self.width - 1).astype(key_type)
        order = np.argsort(key, kind="stable")  # radix sort for 16-bit keys
        self.order = order if kept is None else kept[order]
        self.starts = np.zeros(runs + 1, dtype=np.int64)
        np.cumsum(np.bincount(key, minlength=runs), out=self.starts[1:])

    def span(self, key: Any, group: str | None) -> tuple[int, int]:
        """Positions [a, b) in sorted order of one row id's rows (in one group, if given)."""
        r = self.ids.code(key)
        if r is None:
            return 0, 0
        if group is None:
            return int(self.starts[r * self.width]), int(self.starts[(r + 1) * self.width])
        g = self.groups.code(group)
        if g is None:
            return 0, 0
        run = r * self.width + g
        return int(self.starts[run]), int(self.starts[run + 1])

    def counts(self, flags: np.ndarray) -> np.ndarray:
        """Cumulative count of true flags in sorted order (index a: before position a)."""
        out = np.zeros(len(self.order) + 1, dtype=np.int64)
        np.cumsum(flags[self.order], out=out[1:])
        return out
