"""The instance table at scale: only the columns the prereg names, one row group at a time.

Nothing is held as one Python object per row for the whole table. Per column:
- the row id, the group column and single_value sources become integer codes
  into a dictionary of their distinct values (string columns arrive as
  categoricals from the file wherever the row group stores them with a
  dictionary: a dictionary's values are decoded once);
- the instance key becomes one 64-bit hash per row, enough to prove that no
  key repeats (a repeat, or a collision, sends the check to the exact path);
- mean sources become doubles (NaN for null and for NaN), rate sources two
  boolean arrays (true, non-null).
The recipes then tally per run, a (row id, group) pair, with np.bincount
over one run index per row (Runs): no sort of the rows.

Each row group is read through fastparquet's public `ParquetFile` API
(`pf[i].to_pandas`, as `iter_row_groups` does), string columns as their stored
bytes (read.raw_strings), checked to be UTF-8 (unreadable otherwise) and
hashed as bytes: equal strings have equal bytes, so a row group read as
categories and one read as values hash alike.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import fastparquet
import numpy as np
import pandas as pd

from .checks import duplicate_keys, nan_keys
from .errors import BAD_TYPE, UNREADABLE, InputError
from .prereg.leaderboard import MEAN, RATE, SINGLE_VALUE, Prereg
from .read import Table, load_table, raw_strings, read_group, utf8
from .values import BOOLEAN, FLOATING, NUMERIC_KINDS, STRING, is_null

NULL = -1
NULL_HASH = np.uint64(2**64 - 1)  # every missing value, whichever way the reader gave it
# how pandas hashes None, NaN and pd.NA in an object array (categorize=False)
_NULL_HASHES = pd.util.hash_array(np.array([None, np.nan, pd.NA], dtype=object), categorize=False)
_NONE_HASH = _NULL_HASHES[0]
_MIX = np.uint64(1_000_003)
_LITTLE = sys.byteorder == "little"  # then a uint64's upper half is its second uint32
_NO_HASHES = np.empty(0, dtype=np.uint64)
_CHUNK = 1 << 20  # rows per step where a full-size temporary is not needed


class Encoder:
    """A growing dictionary: distinct non-null values of a column, each with its code.

    Values are the keys of a Python dict, so they compare as Python compares them: a
    float as an IEEE number, 0.0 and -0.0 one value (one code, the first seen), as the
    contract compares a row id linking instance rows and a single_value source's values
    (docs/contract.md, Recipes; NaN, read as null, gets none)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.values: list[Any] = []
        self.index: dict[Any, int] = {}

    def remap(self, uniques: Any) -> np.ndarray:
        """The global code of each of a row group's uniques, then NULL (for local code -1)."""
        remap = np.empty(len(uniques) + 1, dtype=np.int32)
        remap[-1] = NULL
        for j, value in enumerate(uniques):
            code = self.index.get(value)
            if code is None:
                code = self.index[value] = len(self.values)
                self.values.append(value)
            remap[j] = code
        return remap

    def encode(self, local: np.ndarray, uniques: Any) -> np.ndarray:
        """Global codes for a row group's local codes (negative: null) into its own uniques."""
        remap = self.remap(uniques)
        narrow = len(self.values) <= np.iinfo(np.int16).max
        return remap.astype(np.int16 if narrow else np.int32)[local]  # -1: remap's last, NULL

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
        # a population column is read as a rate source is: its non-null flags decide
        rate += [c for c in col.population.values() if table.kinds[c] == BOOLEAN]
        if col.universe is not None and table.kinds[col.universe.column] == STRING:
            encoded.append(col.universe.column)  # its ids, as codes per row
    return _unique(encoded), _unique(prereg.instance_key), _unique(mean), _unique(rate)


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


class _Column:
    """One row group's column as read, with what its roles need, each worked out once.

    A string column comes as stored bytes: categorical (codes into a
    dictionary) or values; it is checked to be UTF-8 here (unreadable)."""

    def __init__(self, series: pd.Series, kind: str, display: str, name: str) -> None:
        self.kind = kind
        self.display = display
        self.name = name
        self.categorical = isinstance(series.dtype, pd.CategoricalDtype)
        if self.categorical:
            self.codes = np.asarray(series.array.codes)
            self.categories = series.array.categories.to_numpy(dtype=object)
            self.values = None
        else:
            self.values = series.to_numpy(dtype=object) if kind == STRING else series
        self._value_hash: np.ndarray | None = None
        if kind != STRING:
            return
        if self.categorical:  # a dictionary holds no null
            utf8(self.categories, display, name)
        else:
            nulls = self.raw_hash() == _NONE_HASH  # (b"None" too: checked, harmlessly)
            utf8(self.values[~nulls] if nulls.any() else self.values, display, name)

    def raw_hash(self) -> np.ndarray:
        """pandas' hash of each stored value (strings: their UTF-8 bytes)."""
        if self._value_hash is None:
            self._value_hash = pd.util.hash_array(self.values, categorize=False)
        return self._value_hash

    def local_codes(self) -> tuple[np.ndarray, Any]:
        """(codes, uniques) of the row group; -1 for null (NaN counts as null)."""
        if self.categorical:
            if self.kind != STRING:
                return self.codes, self.categories
            return self.codes, np.array([v.decode("utf-8") for v in self.categories], dtype=object)
        values = self.values if self.kind == STRING else self.values.to_numpy(dtype=object)
        codes, uniques = pd.factorize(values)
        if self.kind == STRING:
            uniques = np.array([v.decode("utf-8") for v in uniques], dtype=object)  # checked
        return codes, uniques

    def key_hash(self) -> np.ndarray | None:
        """A 64-bit hash per row (equal values, equal hashes; every null NULL_HASH).

        None if a value cannot be hashed (the exact check decides)."""
        try:
            if self.categorical:
                by_value = pd.util.hash_array(self.categories, categorize=False)
                out = np.full(len(self.codes), NULL_HASH, dtype=np.uint64)
                hit = self.codes >= 0
                out[hit] = by_value[self.codes[hit]]
                return out
            if self.kind == STRING:
                out = self.raw_hash().copy()
                out[out == _NONE_HASH] = NULL_HASH
                return out
            out = pd.util.hash_array(self.values.to_numpy(dtype=object), categorize=False)
        except (TypeError, ValueError, UnicodeError):
            return None
        # (a value that hashes like None or NaN joins the nulls: a collision, settled exactly)
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


def _store_codes(inst: Instances, name: str, start: int, codes: np.ndarray) -> None:
    """Codes of one row group into the table's array, first widened if the codes outgrow it.

    The array starts as int16 (most columns hold few distinct values: half
    the memory of int32, and memory first touched costs time)."""
    column = inst.codes[name]
    if len(inst.encoders[name].values) > np.iinfo(column.dtype).max:
        column = inst.codes[name] = column.astype(np.int32)
    column[start : start + len(codes)] = codes


def load(table: Table, path: str, prereg: Prereg) -> Instances:
    """Read every column the prereg names, row group by row group (unreadable on failure).

    Columns no role reads here (a source of the wrong type: bad_type, later)
    are read too, as the other contestant reads them, so that a fault in them
    is found here."""
    from .checks import instance_names

    encoded, key, mean, rate = _roles(table, prereg)
    names = _unique([*encoded, *key, *mean, *rate, *instance_names(prereg)])
    strings = [n for n in names if table.kinds[n] == STRING]
    display = table.display
    try:
        pf = table.pfile if table.pfile is not None else fastparquet.ParquetFile(path, verify=True)
        raw_strings(pf, strings, table.kinds)
        total = sum(rg.num_rows for rg in pf.row_groups)
        inst = Instances(table, path, total)
        for n in encoded:
            inst.encoders[n] = Encoder(table.kinds[n])
            inst.codes[n] = np.empty(total, dtype=np.int16)  # widened if it must be (_store)
        inst.key_hash = np.zeros(total, dtype=np.uint64)
        for n in mean:
            inst.numbers[n] = np.empty(total, dtype=np.float64)
        for n in rate:
            inst.flags[n] = (np.empty(total, dtype=bool), np.empty(total, dtype=bool))
        start = 0
        for i, rg in enumerate(pf.row_groups):
            if rg.num_rows == 0:
                continue
            end = start + rg.num_rows
            frame = read_group(pf, path, i, names, table.kinds, strings)
            cols = {n: _Column(frame[n], table.kinds[n], display, n) for n in names}
            del frame
            for n in encoded:
                _store_codes(inst, n, start, inst.encoders[n].encode(*cols[n].local_codes()))
            acc = inst.key_hash[start:end]  # zeros: acc * _MIX ^ hash, column by column
            for j, n in enumerate(key):
                hashed = None if inst.key_exact else cols[n].key_hash()
                if hashed is None:
                    inst.key_exact = True
                    break
                if j:
                    acc *= _MIX
                    acc ^= hashed
                else:
                    acc[:] = hashed
            for n in mean:
                inst.numbers[n][start:end] = _floats(cols[n].values)
            for n in rate:
                true, valid = _flags(cols[n].values)
                inst.flags[n][0][start:end] = true
                inst.flags[n][1][start:end] = valid
            start = end
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - any read failure means unreadable
        raise InputError(UNREADABLE, display, f"cannot read parquet data: {exc}") from None
    return inst


def repeats(hashes: np.ndarray) -> bool:
    """Whether a 64-bit value occurs twice.

    Sorting the upper 32 bits costs half a sort of the values. Equal values
    have equal upper halves, so only the rows whose upper half repeats (by a
    table on its low 20 bits: about one row in a hundred) are compared in
    full, picked chunk by chunk (no full-size temporaries)."""
    upper = hashes.view(np.uint32)[1::2] if _LITTLE else (hashes >> np.uint64(32)).astype(np.uint32)
    ordered = np.sort(upper)
    same = ordered[1:] == ordered[:-1]
    repeated = ordered[1:][same]
    del ordered, same
    if not len(repeated):
        return False
    table = np.zeros(1 << 20, dtype=bool)  # in cache
    table[repeated & np.uint32(0xFFFFF)] = True
    low = np.uint32(0xFFFFF)
    picked = [
        hashes[a : a + _CHUNK][table[upper[a : a + _CHUNK] & low]]
        for a in range(0, len(hashes), _CHUNK)
    ]
    suspects = np.sort(np.concatenate(picked))
    return bool((suspects[1:] == suspects[:-1]).any())


def check_duplicate_keys(inst: Instances, prereg: Prereg) -> None:
    """duplicate_key for the instance key, exactly as the whole-table check words it;
    before it, bad_type for a NaN in the key, then in the row id column when the key
    leaves it out (a NaN names no row: docs/contract.md).

    Distinct hashes prove distinct keys; a repeated hash (a repeated key, or
    a collision) rereads the key columns and runs the exact check. The hashes
    are dropped from `inst` (nothing after this check uses them)."""
    hashes, inst.key_hash = inst.key_hash, _NO_HASHES  # needed no more: free them
    key = list(prereg.instance_key)
    # a floating key is read exactly: its hash tells 0.0 from -0.0 (one key) and a NaN
    # from nothing (a NaN is no key: bad_type, docs/contract.md)
    floating = any(inst.table.kinds[k] == FLOATING for k in key)
    table = None
    if floating or inst.key_exact or repeats(hashes):
        del hashes
        table = load_table(inst.table.display, inst.path, columns=key)
        nan_keys(table, key, "instance key")
    if prereg.row_id not in key and inst.table.kinds[prereg.row_id] == FLOATING:
        # read as objects: the codes made a NaN null, as a null (docs/contract.md: a NaN
        # row id is bad_type, a null one names no row)
        ids = load_table(inst.table.display, inst.path, columns=[prereg.row_id])
        nan_keys(ids, [prereg.row_id], "row id")
    if table is not None:
        duplicate_keys(table, key, "instance key")


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
        if col.universe is not None and table.kinds[col.universe.column] != STRING:
            raise InputError(
                BAD_TYPE,
                table.display,
                f"universe column '{col.universe.column}' (for '{col.name}') is"
                f" {table.kinds[col.universe.column]}, not string",
            )
        for policy, column in col.population.items():
            if table.kinds[column] != BOOLEAN:
                raise InputError(
                    BAD_TYPE,
                    table.display,
                    f"population column '{column}' (policy '{policy}' of '{col.name}') is"
                    f" {table.kinds[column]}, not boolean",
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
        out = np.zeros(self.count, dtype=np.int64)
        for a in range(0, len(self.key), _CHUNK):  # no full-size temporaries
            out += np.bincount(
                self.key[a : a + _CHUNK][flags[a : a + _CHUNK]], minlength=self.count
            )
        return out

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
