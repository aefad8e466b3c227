"""feasibility.csv (docs/contract.md, Feasibility): is a published value scale * S / N
for some whole S, at its printed decimals under the declared rounding?

This contestant rounds each candidate exactly (a Fraction to whole units of
10^-d) and bisects over S: rounding is monotone, so the S that print as the
published value are those from the first that rounds to at least it up to
the first that rounds above it.
"""

from __future__ import annotations

import math
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pyarrow as pa

from .errors import InputError
from .prereg.cells import FeasibleColumn, InstanceRows, Prereg
from .read import read_columns
from .values import base_type, is_number_type

HEADER = ["row_id", "column", "published", "n", "verdict", "low", "high"]


def check_types(pr: Prereg, schema: pa.Schema, path: str) -> None:
    """bad_type: a declared column not integer or floating, then a count column not integer."""
    for f in pr.feasibility:
        typ = schema.field(f.name).type
        if not is_number_type(typ):
            raise InputError("bad_type", path, f"feasibility column {f.name!r} has type {typ}")
    for f in pr.feasibility:
        if isinstance(f.count, str):
            typ = schema.field(f.count).type
            if not pa.types.is_integer(base_type(typ)):
                raise InputError(
                    "bad_type", path, f"feasibility count column {f.count!r} has type {typ}"
                )


def _printed(value: Any, typ: pa.DataType, least: int) -> tuple[Fraction, int] | None:
    """The published value exactly and the decimals it is read at; None when there is none."""
    if value is None:
        return None
    if pa.types.is_integer(base_type(typ)):
        return Fraction(int(value)), least
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return None
    shown = Decimal(repr(x)).normalize()
    exponent = shown.as_tuple().exponent
    assert isinstance(exponent, int)
    return Fraction(shown), max(-exponent, 0, least)


def _round(x: Fraction, decimals: int, rounding: str) -> int:
    """x in whole units of 10^-decimals under the rounding."""
    t = x * 10**decimals
    if rounding == "half_even":
        return round(t)  # Fraction rounds ties to even
    if rounding == "half_up":  # ties away from zero
        r = math.floor(abs(t) + Fraction(1, 2))
        return r if t >= 0 else -r
    return math.trunc(t)  # truncate: toward zero


def _first(lo: int, hi: int, at_least: int, value: Any) -> int:
    """The least S in lo..hi whose rounded value is at least `at_least` (hi + 1 if none)."""
    while lo <= hi:
        mid = (lo + hi) // 2
        if value(mid) >= at_least:
            hi = mid - 1
        else:
            lo = mid + 1
    return lo


def verdict(
    f: FeasibleColumn, printed: tuple[Fraction, int] | None, n: int | None
) -> tuple[str, str, str]:
    """(verdict, low, high) of one cell."""
    if printed is None:
        return "no_value", "", ""
    if n is None or n < 1:
        return "no_count", "", ""
    published, d = printed
    units = int(published * 10**d)
    least, greatest = f.least * n, f.greatest * n

    def rounded(s: int) -> int:
        return _round(Fraction(f.scale * s, n), d, f.rounding)

    start = _first(least, greatest, units, rounded)  # first S printing as P or above
    stop = _first(least, greatest, units + 1, rounded)  # first S printing above P
    if start < stop:
        return "feasible", str(start), str(stop - 1)
    below = str(start - 1) if start - 1 >= least else ""
    above = str(stop) if stop <= greatest else ""
    return "infeasible", below, above


def _instance_rows(pr: Prereg, in_path: str, group: str | None) -> Counter[Any]:
    """Row id -> its number of instance rows (of `group` only, when named)."""
    names = list(dict.fromkeys([pr.row_id, *([pr.group_by] if group is not None else [])]))
    table = read_columns(in_path, names)
    ids = table.column(pr.row_id).to_pylist()
    if group is None:
        return Counter(ids)
    groups = table.column(pr.group_by).to_pylist()
    return Counter(rid for rid, g in zip(ids, groups) if g == group)


def feasibility_rows(
    pr: Prereg, lb: Any, in_path: str
) -> tuple[list[list[str]], set[tuple[int, str]]]:
    """feasibility.csv's rows, sorted, and the (leaderboard row, column) cells found infeasible."""
    rows: list[list[str]] = []
    infeasible: set[tuple[int, str]] = set()
    for f in pr.feasibility:
        typ = lb.types[f.name]
        counted = (
            _instance_rows(pr, in_path, f.count.group)
            if isinstance(f.count, InstanceRows)
            else None
        )
        for j, rid in enumerate(lb.row_shown):
            if counted is not None:
                n = counted[lb.row_ids[j]]
            else:
                n = f.count if isinstance(f.count, int) else lb.values[f.count][j]
            got = verdict(f, _printed(lb.values[f.name][j], typ, f.decimals), n)
            shown_n = "" if n is None else str(n)
            rows.append([rid, f.name, lb.shown[f.name][j], shown_n, *got])
            if got[0] == "infeasible":
                infeasible.add((j, f.name))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows, infeasible
