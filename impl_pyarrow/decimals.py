"""The decimals a mean source's values print (contract, Agreement beyond chance).

A value prints its shortest round-trip text, as Arrow casts a double to a
string ("0.0354", "1e-05", "2.5e+20"); its decimals are the digits after the
point, less the exponent, never below 0. They are worked out once for each
distinct value of a source column, in Arrow compute, and handed back per row,
so a group's most is one reduction over its rows and no value is printed once
per cell it falls in.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import pyarrow as pa
import pyarrow.compute as pc

# mantissa digits, the point and its digits (trailing zeros apart), then the exponent
_SHORTEST = r"^-?[0-9]*(?:\.(?P<frac>[0-9]*?))?0*(?:[eE]\+?(?P<exp>-?[0-9]+))?$"


def printed(values: pa.Array) -> pa.Array:
    """Per double: the decimals of its shortest text (int64); null for null, NaN and infinities."""
    parts = pc.extract_regex(pc.cast(values, pa.string()), _SHORTEST)
    digits = pc.utf8_length(parts.field("frac")).cast(pa.int64())  # "" where no point
    exp = parts.field("exp")  # "" where no exponent
    exponent = pc.if_else(pc.equal(exp, ""), "0", exp).cast(pa.int64())
    return pc.max_element_wise(pc.subtract(digits, exponent), 0)


def per_row(column: pa.ChunkedArray) -> pa.Array:
    """Each row's decimals, the column's chunks one after the other (read as doubles;
    nulls stay null)."""
    doubles = column.cast(pa.float64(), safe=False)  # integers as Python's float() rounds them
    distinct = pc.unique(doubles)
    # one lookup over the whole column: the hash of the distinct values is built once
    where = pc.index_in(doubles, value_set=distinct)
    return pc.take(printed(distinct), where.combine_chunks())


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
