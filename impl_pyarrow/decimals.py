"""The decimals a mean source's values print (contract, Agreement beyond chance).

A value prints its shortest round-trip text, as Arrow casts a double to a
string ("0.0354", "0.00001", "1e-7", "2.5e+20"); its decimals are the digits
after the point, less the exponent, never below 0. Most texts have no exponent
and no trailing zero: their decimals are the characters after the point,
found by string length and position in Arrow compute; the others go through
one pattern. Every row is printed where it lies, so a group's most is one
reduction over its rows and no value is printed once per cell it falls in.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import pyarrow as pa
import pyarrow.compute as pc

# mantissa digits, the point and its digits (trailing zeros apart), then the exponent
_SHORTEST = r"^-?[0-9]*(?:\.(?P<frac>[0-9]*?))?0*(?:[eE]\+?(?P<exp>-?[0-9]+))?$"


def _by_pattern(text: pa.Array) -> pa.Array:
    """Decimals of any shortest text (int64); null where it is not a finite number's."""
    parts = pc.extract_regex(text, _SHORTEST)
    digits = pc.utf8_length(parts.field("frac")).cast(pa.int64())  # "" where no point
    exp = parts.field("exp")  # "" where no exponent
    exponent = pc.if_else(pc.equal(exp, ""), "0", exp).cast(pa.int64())
    return pc.max_element_wise(pc.subtract(digits, exponent), 0)


def printed(values: pa.Array) -> pa.Array:
    """Per double: the decimals of its shortest text (int64); null for null, 0 for NaN
    and the infinities (no digits after a point)."""
    text = pc.cast(values, pa.string())
    finite = pc.is_finite(values)
    point = pc.find_substring(text, ".").cast(pa.int64())  # -1: no point
    after = pc.subtract(pc.subtract(pc.binary_length(text).cast(pa.int64()), point), 1)
    places = pc.if_else(pc.equal(point, -1), 0, after)
    # an exponent or a trailing zero after the point: the pattern decides
    zero = pc.and_(pc.greater_equal(point, 0), pc.ends_with(text, "0"))
    # Arrow writes the exponent "e" (the pattern takes "E" too; the tests hold the
    # places of values from 1e-40 to 1e40 against Python's own repr)
    other = pc.or_(pc.greater_equal(pc.find_substring(text, "e"), 0), zero)
    other = pc.fill_null(pc.and_(other, finite), False)
    if pc.any(other).as_py():
        places = pc.replace_with_mask(places, other, _by_pattern(pc.filter(text, other)))
    return pc.if_else(finite, places, 0)


def per_row(column: pa.ChunkedArray) -> pa.Array:
    """Each row's decimals, the column's chunks one after the other (read as doubles;
    nulls stay null)."""
    doubles = column.cast(pa.float64(), safe=False)  # integers as Python's float() rounds them
    return pa.concat_arrays(
        [printed(chunk) for chunk in doubles.chunks] or [pa.array([], pa.int64())]
    )


def most(pieces: Sequence[pa.Array]) -> int:
    """The most decimals among the pieces' rows (0 for none)."""
    found = [pc.max(piece).as_py() for piece in pieces if len(piece)]
    return max((d for d in found if d is not None), default=0)


def most_of_each(lists: list[list[float]]) -> list[int]:
    """For each list of values, the most decimals any of them prints (0 for an empty one):
    every value printed in one pass (the parts of a mean of columns, cell by cell)."""
    flat = pa.array(list(chain.from_iterable(lists)), pa.float64())
    found = printed(flat).to_pylist() if len(flat) else []
    out: list[int] = []
    start = 0
    for values in lists:
        out.append(max((d for d in found[start : start + len(values)] if d is not None), default=0))
        start += len(values)
    return out
