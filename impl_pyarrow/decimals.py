"""The float-honest decimals of a mean source's values (contract, Agreement beyond chance).

Every row is read where it lies, so a group's most is one reduction over its
rows and no value is read once per cell it falls in.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc


def per_row(column: pa.ChunkedArray, epsilon: Fraction) -> pa.Array:
    """Each row's float-honest decimals, the column's chunks one after the other (read
    as doubles; nulls stay null)."""
    doubles = column.cast(pa.float64(), safe=False)  # integers as Python's float() rounds them
    return pa.concat_arrays(
        [honest(chunk, epsilon) for chunk in doubles.chunks] or [pa.array([], pa.int64())]
    )


def most(pieces: Sequence[pa.Array]) -> int:
    """The most decimals among the pieces' rows (0 for none)."""
    found = [pc.max(piece).as_py() for piece in pieces if len(piece)]
    return max((d for d in found if d is not None), default=0)


# Float-honest decimals (contract, Agreement beyond chance). A double computed by
# sums and products prints binary noise in its shortest text (565.6352234999999);
# its decimals are those of the coarsest grid 10**-d holding a point within
# max(epsilon, 2**-52) * max(1, |x|) of it, d = 0 .. 16 (every double lies that
# close to a multiple of 10**-16 and to its own shortest text, so neither is ever
# exceeded). Arrow compute decides it over whole arrays (x * 10**d rounded to a whole
# number, over 10**d); a distance within a hair of the tolerance (a float
# computation) is settled exactly in Python, value by value.
_LAST = 16
_HAIR = 2.0**-48  # 32 times the float error of the distance, at least


def _exact_hit(x: float, d: int, slack: Fraction) -> bool:
    """The rule exactly, in integers: x = num / den, k the whole number of 10**-d nearest
    x; |num * 10**d - k * den| / (den * 10**d) <= slack * max(|x|, 1)."""
    num, den = abs(x).as_integer_ratio()
    rest = num * 10**d % den  # x * 10**d is k + rest / den, k whole
    off = min(rest, den - rest)  # to the nearer of k and k + 1, times den
    return off * slack.denominator <= slack.numerator * max(num, den) * 10**d


def _hits(x: pa.Array, lo: pa.Array, hi: pa.Array, d: int, slack: Fraction) -> pa.Array:
    """Per value (finite, >= 0, no nulls): within the tolerance of the grid 10**-d. The
    float distance decides where it is at most lo or more than hi (the tolerance less
    and plus a hair); between them, or NaN, the exact rule does."""
    scale = float(10**d)
    # (Arrow's round to d digits strays by more than the tolerance from d = 11 on:
    # the grid point is taken as a whole number of 10**-d instead)
    nearest = pc.divide(pc.round(pc.multiply(x, scale), round_mode="half_to_even"), scale)
    gap = pc.abs(pc.subtract(x, nearest))
    sure = pc.fill_null(pc.less_equal(gap, lo), False)
    unsure = pc.invert(pc.fill_null(pc.or_(sure, pc.greater(gap, hi)), False))
    if not pc.any(unsure).as_py():
        return sure
    values = pc.filter(x, unsure).to_pylist()
    decided = pa.array([_exact_hit(v, d, slack) for v in values], pa.bool_())
    return pc.replace_with_mask(sure, unsure, decided)


def honest(values: pa.Array, epsilon: Fraction) -> pa.Array:
    """Per double: its float-honest decimals (int64); null for null, 0 for NaN, the
    infinities and every value from 2**52 up (all whole)."""
    slack = max(epsilon, Fraction(1, 1 << 52))
    x = pc.abs(values.cast(pa.float64()))
    todo = pc.fill_null(pc.less(x, 2.0**52), False)  # NaN compares false: 0 places
    places = pc.if_else(pc.is_valid(x), 0, pa.scalar(None, pa.int64())).cast(pa.int64())
    positions = pc.indices_nonzero(todo)
    pending = pc.filter(x, todo)
    bound = pc.multiply(pc.max_element_wise(pending, 1.0), float(slack))
    hair = pc.multiply(pc.add(pending, 1.0), _HAIR)
    lo, hi = pc.subtract(bound, hair), pc.add(bound, hair)
    found: list[tuple[pa.Array, int]] = []
    for d in range(_LAST + 1):
        if len(pending) == 0:
            break
        hit = _hits(pending, lo, hi, d, slack)
        found.append((pc.filter(positions, hit), d))
        keep = pc.invert(hit)
        positions, pending, lo, hi = (pc.filter(a, keep) for a in (positions, pending, lo, hi))
    if len(pending):  # never: every value is within at 16
        found.append((positions, _LAST))
    if not found:
        return places
    where = pa.concat_arrays([p.cast(pa.int64()) for p, _ in found])
    what = pa.concat_arrays([pa.repeat(pa.scalar(d, pa.int64()), len(p)) for p, d in found])
    return pc.replace_with_mask(places, todo, pc.take(what, pc.sort_indices(where)))
