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

Each column chunk is read through chunks.py where its layout allows (no
DataFrame; a dictionary's values decoded and hashed once; plain string pages
hashed from their bytes when ASCII), else through fastparquet's DataFrame as
before. Both ways give the same codes, hashes and values (the string hash is
_text_hash either way), so row groups read either way mix freely.
"""

from __future__ import annotations

import contextlib
import math
import sys
from dataclasses import dataclass, field
from typing import Any

import fastparquet
import numpy as np
import pandas as pd
from fastparquet import parquet_thrift
from fastparquet.speedups import unpack_byte_array

from . import chunks
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
_LITTLE = sys.byteorder == "little"  # then a uint64's upper half is its second uint32
_NO_HASHES = np.empty(0, dtype=np.uint64)
_CHUNK = 1 << 20  # rows per step where a full-size temporary is not needed
_CT = parquet_thrift.ConvertedType


class Encoder:
    """A growing dictionary: distinct non-null values of a column, each with its code."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.values: list[Any] = []
        self.index: dict[Any, int] = {}

    def remap(self, uniques: Any) -> np.ndarray:
        """The global code of each of a row group's uniques, then NULL (for local code -1)."""
        remap = np.empty(len(uniques) + 1, dtype=np.int32)
        remap[-1] = NULL
        for j, value in enumerate(uniques):
            if self.kind == STRING and isinstance(value, bytes):
                value = value.decode("utf-8")
            code = self.index.get(value)
            if code is None:
                code = self.index[value] = len(self.values)
                self.values.append(value)
            remap[j] = code
        return remap

    def encode(self, local: np.ndarray, uniques: Any) -> np.ndarray:
        """Global codes for a row group's local codes (negative: null) into its own uniques."""
        remap = self.remap(uniques)
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

    `text`: the column is UTF8 in the file; then every way a row group is
    read (categories, values, or a chunk's dictionary or plain pages) hashes
    with _text_hash, so equal values hash alike whichever way their row group
    was read. None if a value cannot be hashed."""
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


def _text_hash(values: np.ndarray, nulls: bool = True) -> np.ndarray | None:
    """pandas' hash of each value's UTF-8 bytes (str, or bytes as read), every null NULL_HASH.

    A str and its UTF-8 bytes hash alike (pandas encodes a str first; any
    other value hashes as its str(), a collision at worst). (A value whose
    hash is NULL_HASH joins the nulls: a collision, settled exactly.) Without
    `nulls`, the caller knows that no value is null. None if a value cannot be
    hashed: the exact check decides."""
    if not len(values):
        return np.empty(0, dtype=np.uint64)
    try:
        out = pd.util.hash_array(values, categorize=False)
    except (TypeError, ValueError, UnicodeError):
        return None
    if nulls:
        out[pd.isna(values)] = NULL_HASH
    return out


def _values_hash(values: np.ndarray, text: bool) -> np.ndarray | None:
    if text:
        return _text_hash(values)
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


def _decoded(chunk: chunks.Chunk) -> np.ndarray:
    """The non-null values of a plain string chunk, decoded as fastparquet decodes them."""
    parts = [unpack_byte_array(raw, count, utf=True) for raw, count in chunk.pages]
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class _Ballast:
    """A few of the first plain page's values, kept alive for the process (some thousands).

    Each page's values are 10^5 small Python objects, freed once hashed.
    Python's allocator hands an arena that empties back to the kernel, and
    the next page's objects then fault fresh pages in (a fifth of the read, in
    system time). One value kept per pool keeps every arena in use: the
    next page reuses its memory. Nothing is read from the kept values."""

    def __init__(self) -> None:
        self.kept: list[Any] = []

    def keep(self, values: np.ndarray) -> None:
        if not self.kept:
            self.kept = values[::64].tolist()


_BALLAST = _Ballast()


def _chunk_hash(chunk: chunks.Chunk) -> np.ndarray | None:
    """_text_hash of each non-null value of a string chunk.

    A dictionary is hashed once, then gathered by index. A plain page whose
    bytes are all ASCII is hashed as bytes (its strings decode to the same
    bytes); any other is decoded first, as fastparquet decodes it."""
    if chunk.indices is not None:
        assert chunk.dictionary is not None
        by_value = _text_hash(chunk.dictionary)
        return None if by_value is None else by_value[chunk.indices]
    parts = []
    for raw, count in chunk.pages:
        data = np.frombuffer(raw, dtype=np.uint8)
        ascii = not len(data) or int(data.max()) < 0x80
        values = unpack_byte_array(raw, count, utf=not ascii)
        _BALLAST.keep(values)
        # (values past the end of a short page stay None: nulls, as fastparquet reads them)
        hashed = _text_hash(values, nulls=bool(count) and values[-1] is None)
        if hashed is None:
            return None
        parts.append(hashed)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _chunk_values(chunk: chunks.Chunk) -> np.ndarray:
    """The non-null values of a numeric or boolean chunk."""
    if chunk.indices is not None:
        assert chunk.dictionary is not None
        return chunk.dictionary[chunk.indices]
    assert chunk.values is not None
    return chunk.values


def _spread(values: np.ndarray, valid: np.ndarray | None, fill: Any, out: np.ndarray) -> None:
    """Per row into `out`: the non-null values in order, `fill` at null rows."""
    if valid is None:
        out[:] = values
    else:
        out[~valid] = fill
        out[valid] = values


@dataclass
class _Roles:
    encoded: list[str]
    key: list[str]
    mean: list[str]
    rate: list[str]
    text: set[str]


def _read_fast(
    inst: Instances, pf: Any, handle: Any, rg: Any, name: str, roles: _Roles
) -> dict[str, np.ndarray | None]:
    """One column of one row group through chunks.py: every role's arrays (raises if it cannot).

    Nothing is stored in `inst` here, and the encoder is touched last, so a
    failure leaves the column to the DataFrame reader as if never tried."""
    chunk = chunks.read(pf, handle, rg, name)
    n = chunk.rows
    valid = chunk.valid
    out: dict[str, np.ndarray | None] = {}
    if name in roles.key:
        if name not in roles.text:
            raise chunks.Unsupported(name)  # hashed by pandas from values: the DataFrame reader
        hashed = _chunk_hash(chunk)
        if hashed is None:
            out["hash"] = None
        else:
            out["hash"] = np.empty(n, dtype=np.uint64)
            _spread(hashed, valid, NULL_HASH, out["hash"])
    if name in roles.mean:
        out["number"] = np.empty(n, dtype=np.float64)
        _spread(_chunk_values(chunk), valid, np.nan, out["number"])
    if name in roles.rate:
        true = np.empty(n, dtype=bool)
        _spread(_chunk_values(chunk).astype(bool, copy=False), valid, False, true)
        out["true"] = true
        out["valid"] = np.ones(n, dtype=bool) if valid is None else valid
    if name in roles.encoded:
        if inst.table.kinds[name] != STRING:
            raise chunks.Unsupported(name)
        encoder = inst.encoders[name]
        if chunk.indices is not None:
            local, uniques = chunk.indices, chunk.dictionary
        else:
            local, uniques = pd.factorize(_decoded(chunk))
        remap = encoder.remap(uniques)
        narrow = len(encoder.values) <= np.iinfo(np.int16).max
        codes = np.empty(n, dtype=np.int16 if narrow else np.int32)  # as _store_codes keeps them
        _spread(remap.astype(codes.dtype)[local], valid, NULL, codes)
        out["codes"] = codes
    return out


def _store_codes(inst: Instances, name: str, start: int, codes: np.ndarray) -> None:
    """Codes of one row group into the table's array, first widened if the codes outgrow it.

    The array starts as int16 (most columns hold few distinct values: half
    the memory of int32, and memory first touched costs time)."""
    column = inst.codes[name]
    if len(inst.encoders[name].values) > np.iinfo(column.dtype).max:
        column = inst.codes[name] = column.astype(np.int32)
    column[start : start + len(codes)] = codes


def load(table: Table, path: str, prereg: Prereg) -> Instances:
    """Read the needed columns row group by row group (unreadable on failure).

    Each column of each row group is read through chunks.py where it can be;
    the others (and any that chunks.py cannot read) through fastparquet's
    DataFrame, as before."""
    encoded, key, mean, rate = _roles(table, prereg)
    names = list(dict.fromkeys([*encoded, *key, *mean, *rate]))
    strings = [n for n in names if table.kinds[n] == STRING]
    try:
        pf = table.pfile if table.pfile is not None else fastparquet.ParquetFile(path, verify=True)
        text = {n for n in key if pf.schema.schema_element([n]).converted_type == _CT.UTF8}
        roles = _Roles(encoded, key, mean, rate, text)
        fast = [n for n in names if chunks.readable(pf, n)]
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
        with open(path, "rb") as handle:
            for i, rg in enumerate(pf.row_groups):
                if rg.num_rows == 0:
                    continue
                end = start + rg.num_rows
                got: dict[str, dict[str, np.ndarray | None]] = {}
                for n in fast:
                    with contextlib.suppress(Exception):  # the DataFrame reader decides
                        got[n] = _read_fast(inst, pf, handle, rg, n, roles)
                slow = [n for n in names if n not in got]
                frame = None
                if slow:
                    frame = _read_group(pf, i, slow, [n for n in strings if n in slow])
                    if len(frame) != rg.num_rows or list(frame.columns) != slow:
                        raise ValueError("column layout not supported")
                for n in encoded:
                    if n in got:
                        codes = got[n]["codes"]
                    else:
                        assert frame is not None
                        local, uniques = _local_codes(frame[n])
                        codes = inst.encoders[n].encode(local, uniques)
                    _store_codes(inst, n, start, codes)
                acc = inst.key_hash[start:end]  # zeros: acc * _MIX ^ hash, column by column
                for j, n in enumerate(key):
                    if n in got:
                        hashed = got[n]["hash"]
                    else:
                        assert frame is not None
                        hashed = _hash(frame[n], n in text)
                    if hashed is None:
                        inst.key_exact = True
                        break
                    if j:
                        acc *= _MIX
                        acc ^= hashed
                    else:
                        acc[:] = hashed
                for n in mean:
                    if n in got:
                        inst.numbers[n][start:end] = got[n]["number"]
                    else:
                        assert frame is not None
                        inst.numbers[n][start:end] = _floats(frame[n])
                for n in rate:
                    if n in got:
                        true, valid = got[n]["true"], got[n]["valid"]
                    else:
                        assert frame is not None
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
