"""The instance table at scale: only the columns the prereg names, one row group at a time.

Nothing is held as one Python object per row for the whole table. Per column:
- the row id, the group column and single_value sources become integer codes
  into a dictionary of their distinct values (string columns arrive
  dictionary-encoded from the file wherever the row group stores them so);
- the instance key becomes one 64-bit hash per row, enough to prove that no
  key repeats (a repeat, or a collision, sends the check to the exact path);
- mean sources become doubles (NaN for null and for NaN), rate sources two
  boolean arrays (true, non-null).
The recipes then tally per run, a (row id, group) pair, with np.bincount
over one run index per row (Runs): no sort of the rows.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import fastparquet
import numpy as np
import pandas as pd
from fastparquet import parquet_thrift

from .checks import duplicate_keys
from .errors import BAD_TYPE, UNREADABLE, InputError
from .prereg import MEAN, RATE, SINGLE_VALUE, Prereg
from .read import Table, load_table
from .values import BOOLEAN, NUMERIC_KINDS, STRING, is_null

NULL = -1
NULL_HASH = np.uint64(2**64 - 1)  # every missing value, whichever way the reader gave it
# how pandas hashes None, NaN and pd.NA in an object array (categorize=False)
_NULL_HASHES = pd.util.hash_array(np.array([None, np.nan, pd.NA], dtype=object), categorize=False)
_NONE_HASH = np.int64(hash(None)).view(np.uint64)
_MIX = np.uint64(1_000_003)
_LITTLE = sys.byteorder == "little"  # then a uint64's upper half is its second uint32
_NO_HASHES = np.empty(0, dtype=np.uint64)
_CT = parquet_thrift.ConvertedType


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
    key_exact: bool = False  # a key value could not be hashed: the exact check decides
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


def _hash(column: Any, text: bool) -> np.ndarray | None:
    """A 64-bit hash per row (equal values, equal hashes; every null the same).

    `text`: the column is UTF8 in the file, so fastparquet gives str or None
    (a null), and Python's own string hash serves (a third faster than
    pandas', which encodes each string first). The same function hashes a
    row group's categories and another's values, so equal values hash alike
    whichever way a row group was read. None if a value cannot be hashed."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        codes = np.asarray(cat.codes)
        by_value = _values_hash(cat.categories.to_numpy(dtype=object), text)
        if by_value is None:
            return None
        out = np.full(len(codes), NULL_HASH, dtype=np.uint64)
        hit = codes >= 0
        out[hit] = by_value[codes[hit]]
        return out
    return _values_hash(column.to_numpy(dtype=object), text)


def _values_hash(values: np.ndarray, text: bool) -> np.ndarray | None:
    if text:
        try:
            out = np.fromiter(map(hash, values), dtype=np.int64, count=len(values))
        except TypeError:  # not a str after all: the exact check decides
            return None
        out = out.view(np.uint64)
        # (a string whose hash is None's joins the nulls: a collision, settled exactly)
        out[out == _NONE_HASH] = NULL_HASH
        return out
    out = pd.util.hash_array(values, categorize=False)
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
        text = {n for n in key if pf.schema.schema_element([n]).converted_type == _CT.UTF8}
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
                hashed = _hash(frame[n], n in text)
                if hashed is None:
                    inst.key_exact = True
                    break
                acc = (acc * _MIX) ^ hashed
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


def repeats(hashes: np.ndarray) -> bool:
    """Whether a 64-bit value occurs twice.

    Sorting the upper 32 bits costs half a sort of the values. Equal values
    have equal upper halves, so only the rows whose upper half repeats (by a
    table on its low 20 bits: about one row in a hundred) are compared in full."""
    upper = hashes.view(np.uint32)[1::2] if _LITTLE else (hashes >> np.uint64(32)).astype(np.uint32)
    ordered = np.sort(upper)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(repeated):
        return False
    table = np.zeros(1 << 20, dtype=bool)  # in cache
    table[repeated & np.uint32(0xFFFFF)] = True
    suspects = np.sort(hashes[table[upper & np.uint32(0xFFFFF)]])
    return bool((suspects[1:] == suspects[:-1]).any())


def check_duplicate_keys(inst: Instances, prereg: Prereg) -> None:
    """duplicate_key for the instance key, exactly as the whole-table check words it.

    Distinct hashes prove distinct keys; a repeated hash (a repeated key, or
    a collision) rereads the key columns and runs the exact check. The hashes
    are dropped from `inst` (nothing after this check uses them)."""
    hashes, inst.key_hash = inst.key_hash, _NO_HASHES  # needed no more: free them
    if not inst.key_exact and not repeats(hashes):
        return
    del hashes
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
    """Instance rows by run, (row id code, group code); rows with a null row id dropped.

    Run (r, g) has index ``r * width + g``, group code ``width - 1`` standing for
    a null group value, so a row id's runs are the indices
    ``[r * width, (r + 1) * width)``. The recipes tally per run (np.bincount),
    which needs no sort of the rows."""

    def __init__(self, inst: Instances, prereg: Prereg) -> None:
        rid = inst.codes[prereg.row_id]
        grp = inst.codes[prereg.group_by]
        self.groups = inst.encoders[prereg.group_by]
        self.ids = inst.encoders[prereg.row_id]
        self.width = len(self.groups.values) + 1
        self.count = len(self.ids.values) * self.width
        self.kept = None if (rid >= 0).all() else np.flatnonzero(rid >= 0)
        if self.kept is not None:
            rid, grp = rid[self.kept], grp[self.kept]
        key = rid.astype(np.intp)  # np.bincount's own index type: no copy per tally
        key *= self.width
        key += grp
        key[grp < 0] += self.width  # a null group (code -1) is group width - 1
        self.key = key
        self._rows: np.ndarray | None = None

    def rows(self, values: np.ndarray) -> np.ndarray:
        """A per-row array of the instance table, restricted to the rows with a row id."""
        return values if self.kept is None else values[self.kept]

    def tally(self, flags: np.ndarray | None = None) -> np.ndarray:
        """Per run: the number of rows (or of rows whose flag, given per kept row, is set)."""
        if flags is None:
            if self._rows is None:
                self._rows = np.bincount(self.key, minlength=self.count).astype(np.int64)
            return self._rows
        return np.bincount(self.key[flags], minlength=self.count).astype(np.int64)

    def span(self, key: Any, group: str | None) -> tuple[int, int]:
        """Runs [a, b) of one row id (only its run in one group, if given)."""
        r = self.ids.code(key)
        if r is None:
            return 0, 0
        if group is None:
            return r * self.width, (r + 1) * self.width
        g = self.groups.code(group)
        if g is None:
            return 0, 0
        run = r * self.width + g
        return run, run + 1
