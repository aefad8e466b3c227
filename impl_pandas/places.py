"""Float-honest decimal places of doubles (contract, Agreement beyond chance), decided by
arithmetic on whole arrays.

A double computed by sums and products carries binary noise in its last places
(565.6352234999999 is 565.6352235 and an error of 1e-13); its places are those of
the coarsest decimal grid holding a point within the chance test's own
tolerance of it. A run's most (``most_honest_per_run``) needs no value's own
places: the most of every run over a sample of the rows is a floor, one pass
over every row checks which values lie within the tolerance of their run's
floor grid, and only the values that do not are worked out one by one
(``honest``), their places raising their run's most.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

_WHOLE = 2.0**52  # from here up every double is an integer
_FEW = 16  # runs with fewer values than _SAMPLE * _FEW are worked out value by value
_SAMPLE = 64  # every 64th row gives the runs' floors


# Float-honest decimals (contract, Agreement beyond chance): the least d for which a
# value lies within eta * max(1, |x|) of a multiple of 10**-d, eta = max(epsilon,
# 2**-52). Every double lies within 2**-52 * max(1, |x|) of its shortest round-trip
# decimal and of a multiple of 10**-16, so d never exceeds either. Decided in the
# array by rint(x * 10**d) / 10**d, whose error is a few units in the last place of
# x; a value whose distance lies within _MARGIN * (|x| + 1) of its tolerance is
# decided exactly, one by one, with Fractions.
_HONEST_MOST = 16
_MARGIN = 2.0**-48  # 32 times the float error of the distance, at least


def _eta(epsilon: Fraction) -> Fraction:
    return max(epsilon, Fraction(1, 2**52))


def _exactly_within(x: float, d: int, eta: Fraction) -> bool:
    q = Fraction(x)
    return abs(q - Fraction(round(q * 10**d), 10**d)) <= eta * max(Fraction(1), abs(q))


def _within(x: np.ndarray, d: np.ndarray | int, eta: Fraction) -> np.ndarray:
    """Where x (>= 0, finite) lies within eta * max(1, x) of a multiple of 10**-d."""
    scale = 10.0**d
    with np.errstate(over="ignore", invalid="ignore"):
        dist = np.abs(x - np.rint(x * scale) / scale)
    tol = float(eta) * np.maximum(x, 1.0)
    margin = _MARGIN * (x + 1.0)
    hit = dist <= tol - margin
    unsure = np.flatnonzero(~hit & ~(dist > tol + margin))  # NaN distances are unsure too
    if unsure.size:
        ds = np.broadcast_to(d, x.shape)
        hit[unsure] = [_exactly_within(float(x[i]), int(ds[i]), eta) for i in unsure.tolist()]
    return hit


def honest(values: np.ndarray, epsilon: Fraction) -> np.ndarray:
    """Per finite value: its float-honest decimals (see above)."""
    eta = _eta(epsilon)
    x = np.abs(np.asarray(values, dtype=np.float64))
    out = np.zeros(x.shape, dtype=np.int64)
    left = np.flatnonzero(x < _WHOLE)  # from 2**52 up every double is whole: 0
    for d in range(_HONEST_MOST + 1):
        if not left.size:
            break
        hit = _within(x[left], d, eta)
        out[left[hit]] = d
        left = left[~hit]
    out[left] = _HONEST_MOST  # never reached: every value is within at 16
    return out


def most_honest_per_run(
    values: np.ndarray, run: np.ndarray, count: int, epsilon: Fraction
) -> np.ndarray:
    """Per run 0 .. count - 1: the most float-honest decimals among its finite values (0
    for none). Within at d means within at every finer grid, so a run's most is found
    as most_per_run finds it: a floor from a sample of the rows, one pass checking
    which values are within at their run's floor, the others worked out one by one."""
    eta = _eta(epsilon)
    x = np.abs(np.asarray(values, dtype=np.float64))
    out = np.zeros(count, dtype=np.int64)
    if x.size < _SAMPLE * _FEW:
        np.maximum.at(out, run, honest(x, epsilon))
        return out
    np.maximum.at(out, run[::_SAMPLE], honest(x[::_SAMPLE], epsilon))
    beyond = np.flatnonzero(~_within(x, out[run], eta))
    np.maximum.at(out, run[beyond], honest(x[beyond], epsilon))
    return out
