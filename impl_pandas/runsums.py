"""Exact sums of a mean source per run, every run in one pass over the rows (no sort).

A finite double is ``m * 2**(e - 1075)``: ``m`` a signed integer below 2**53
(the significand with its implicit bit), ``e`` the exponent field (1 for
subnormals, whose implicit bit is 0). Per run and per exponent that occurs, the
sum of ``m`` is kept exactly as two int64 halves, ``m = hi * 2**26 + lo``. The
halves are summed by np.bincount, which adds doubles: over a chunk of at most
2**20 rows every partial sum is an integer below 2**47 in magnitude, so every
addition is exact. A run's sum is then assembled as one Python integer times a
power of two, and rounded once: ``math.fsum`` of the same values (which is
correctly rounded) gives the same double; when it rounds beyond the largest
double, the exact sum is kept (values.exact_total does the same).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .instances import Runs
from .values import exact_total

_EXP_MASK = np.uint64(0x7FF)
_FRAC_MASK = np.uint64((1 << 52) - 1)
_EXP_FIELD = np.uint64(0x7FF << 52)
_SIGN = np.uint64(1 << 63)
_HALF = 26
_LOW_MASK = np.int64((1 << _HALF) - 1)
_CHUNK = 1 << 20
_DENSE_BINS = 1 << 22  # runs x exponents kept per run beyond which the rows are sorted instead
_BIAS = 1075


def _exponents(bits: np.ndarray) -> np.ndarray:
    """The exponent field of each double (as given by its bits), subnormals as 1."""
    field = (bits >> np.uint64(52)) & _EXP_MASK
    return np.maximum(field, np.uint64(1)).astype(np.int16)


def _signed_significands(bits: np.ndarray) -> np.ndarray:
    """m of each finite double: the significand with its implicit bit, with the sign."""
    mant = bits & _FRAC_MASK
    mant |= ((bits & _EXP_FIELD) != 0).astype(np.uint64) << np.uint64(52)  # the implicit bit
    signed = mant.view(np.int64)
    np.negative(signed, out=signed, where=bits >= _SIGN)
    return signed


def _round_once(total: int, shift: int) -> float | Fraction:
    """total * 2**shift rounded once to a double; the exact value when that overflows."""
    exact: int | Fraction = total << shift if shift >= 0 else Fraction(total, 1 << -shift)
    try:
        return float(exact)  # int -> float and int / int: correctly rounded, half to even
    except OverflowError:
        return Fraction(exact)


class RunSums:
    """Per run: rows, non-null values (NaN counts as null) and their exact sum."""

    def __init__(self, runs: Runs, values: np.ndarray) -> None:
        x = runs.rows(values)
        present = ~np.isnan(x)
        self.rows = runs.tally()
        self.present = runs.tally(present)
        # every row's exponent field, then the occurring ones (chunks: no full-size temporaries)
        exps = np.empty(len(x), dtype=np.int16)
        seen = np.zeros(2048, dtype=bool)
        for a in range(0, len(x), _CHUNK):
            exps[a : a + _CHUNK] = _exponents(x[a : a + _CHUNK].view(np.uint64))
            seen |= np.bincount(exps[a : a + _CHUNK][present[a : a + _CHUNK]], minlength=2048) > 0
        self.exps = np.flatnonzero(seen)
        width = len(self.exps)
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None
        if runs.count * width > _DENSE_BINS:  # many runs and exponents: sort the rows once
            keys = runs.key[present]
            order = np.argsort(keys, kind="stable")
            starts = np.zeros(runs.count + 1, dtype=np.int64)
            np.cumsum(np.bincount(keys, minlength=runs.count), out=starts[1:])
            self._sorted = (x[present][order], starts)
            return
        slot = np.zeros(2048, dtype=np.int64)
        slot[self.exps] = np.arange(width)
        bins = runs.count * width
        hi = np.zeros(bins, dtype=np.int64)
        lo = np.zeros(bins, dtype=np.int64)
        for a in range(0, len(x), _CHUNK):
            chunk = slice(a, a + _CHUNK)
            kept = present[chunk]
            where = runs.key[chunk][kept] * width
            where += slot[exps[chunk][kept]]
            mant = _signed_significands(x[chunk][kept].view(np.uint64))
            hi += np.bincount(where, weights=mant >> _HALF, minlength=bins).astype(np.int64)
            lo += np.bincount(where, weights=mant & _LOW_MASK, minlength=bins).astype(np.int64)
        self.hi = hi.reshape(runs.count, width)
        self.lo = lo.reshape(runs.count, width)

    def total(self, a: int, b: int) -> float | Fraction:
        """The sum of the non-null values of runs [a, b), as values.exact_total gives it."""
        if self._sorted is not None:
            xs, starts = self._sorted
            return exact_total(xs[starts[a] : starts[b]].tolist())
        hi = self.hi[a:b].sum(axis=0).tolist()
        lo = self.lo[a:b].sum(axis=0).tolist()
        exps = self.exps.tolist()
        used = [j for j in range(len(exps)) if hi[j] or lo[j]]
        if not used:
            return 0.0
        low = exps[used[0]]
        total = sum(((hi[j] << _HALF) + lo[j]) << (exps[j] - low) for j in used)
        return _round_once(total, low - _BIAS)
