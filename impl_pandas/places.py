"""Decimal places a double prints in its shortest round-trip form (contract, Agreement
beyond chance), decided by arithmetic on whole arrays.

x prints d places when d is the least number of places some decimal k / 10**d has
that reads back as x. For each d in turn, while x * 10**d stays below 2**52:
10**d is a double exactly (d <= 22), the float product lies within a quarter of
x * 10**d, and any such k lies within half of it, so it is one of the three
integers around the product's nearest; k / 10**d is then one correctly rounded
division, the very double the decimal reads as. From 2**52 up every double is
whole (0 places). What this cannot settle within those bounds (16 or more
significant digits, values below about 1e-22) numpy's own shortest positional
form decides, once for each distinct such value. No sort of the whole array is
needed: a value seen twice is worked out twice, in the array steps.

A run's most (``most_per_run``) needs no value's own places: the most of every
run over a sample of the rows is a floor, one pass over every row checks which
values read back at their run's floor, and only the values that do not are
worked out one by one (``printed``), their places raising their run's most.
"""

from __future__ import annotations

import numpy as np

_WHOLE = 2.0**52  # from here up every double is an integer; below it, products stay exact enough
_MOST = 22  # the largest d with 10**d a double exactly
_FEW = 16  # values fewer than this go one at a time: the array steps would cost more


def _positional(x: float) -> int:
    return len(np.format_float_positional(x, unique=True, trim="-").partition(".")[2])


def _reads_back(v: np.ndarray, scale: np.ndarray | float, product: np.ndarray) -> np.ndarray:
    """Where some whole k / scale (scale = 10**d, d <= 22) reads back as v (v >= 0),
    ``product`` being v * scale, below 2**52 (beyond it this cannot settle)."""
    k = np.rint(product)
    return (k / scale == v) | ((k - 1) / scale == v) | ((k + 1) / scale == v)


def printed(values: np.ndarray) -> np.ndarray:
    """Per finite value: the decimal places of its shortest round-trip form."""
    x = np.abs(np.asarray(values, dtype=np.float64))
    if x.size < _FEW:
        return np.array([_positional(v) for v in x.tolist()], dtype=np.int64)
    out = np.zeros(x.shape, dtype=np.int64)
    left = np.flatnonzero(x < _WHOLE)
    slow = []
    for d in range(_MOST + 1):
        if not left.size:
            break
        v = x[left]
        scale = 10.0**d
        product = v * scale
        near = product < _WHOLE
        hit = near & _reads_back(v, scale, product)
        out[left[hit]] = d
        slow.append(left[~near])
        left = left[near & ~hit]
    slow.append(left)
    rest = np.concatenate(slow)
    if rest.size:  # each distinct value among them formatted once
        distinct, back = np.unique(x[rest], return_inverse=True)
        out[rest] = np.array([_positional(v) for v in distinct.tolist()], dtype=np.int64)[back]
    return out


_SAMPLE = 64  # every 64th row gives the runs' floors


def most_per_run(values: np.ndarray, run: np.ndarray, count: int) -> np.ndarray:
    """Per run 0 .. count - 1: the most places any of its finite values prints (0 for
    none); ``run`` gives each value's run."""
    x = np.abs(np.asarray(values, dtype=np.float64))
    out = np.zeros(count, dtype=np.int64)
    if x.size < _SAMPLE * _FEW:
        np.maximum.at(out, run, printed(x))
        return out
    np.maximum.at(out, run[::_SAMPLE], printed(x[::_SAMPLE]))
    scale = (10.0 ** np.arange(_MOST + 1))[np.minimum(out, _MOST)][run]
    product = x * scale
    # more places than the run's floor, or not settled by the arithmetic
    beyond = np.flatnonzero(~((product < _WHOLE) & _reads_back(x, scale, product)))
    np.maximum.at(out, run[beyond], printed(x[beyond]))
    return out
