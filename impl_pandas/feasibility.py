"""feasibility.csv (docs/contract.md, Feasibility): whether any whole sum S gives each
published value of a declared column, scale * S / N at its printed decimals.

The pandas way: one frame per declared column, the interval's ends in whole
units of 1 / (2 * 10^d) as Python integers in object columns, and the least
and greatest S found for every row at once by floor division of those
columns (no float takes part).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from .checks import InputError
from .errors import BAD_TYPE
from .prereg.leaderboard import Feasible, Prereg
from .read import Table, load_table
from .values import INTEGER, NUMERIC_KINDS, format_value, is_null

HEADER = ["row_id", "column", "published", "n", "verdict", "low", "high"]
FEASIBLE, INFEASIBLE, NO_VALUE, NO_COUNT = "feasible", "infeasible", "no_value", "no_count"


def check_types(board: Table, prereg: Prereg) -> None:
    """bad_type: a declared column not integer or floating, then an over.column not integer."""
    for f in prereg.feasibility.values():
        if board.kinds[f.column] not in NUMERIC_KINDS:
            raise InputError(
                BAD_TYPE,
                board.display,
                f"feasibility column '{f.column}' is {board.kinds[f.column]}, not integer or floating",
            )
    for f in prereg.feasibility.values():
        if f.over_column is not None and board.kinds[f.over_column] != INTEGER:
            raise InputError(
                BAD_TYPE,
                board.display,
                f"feasibility count column '{f.over_column}' is {board.kinds[f.over_column]}, "
                "not integer",
            )


def _printed(value: Any, kind: str, least: int) -> tuple[int, int] | None:
    """(u, d): the published value as u units of 10^-d, d its printed decimals (at least
    `least`); None for null, NaN or an infinity."""
    if is_null(value):
        return None
    if kind == INTEGER:
        exact = Fraction(int(value))
    else:
        x = float(value)
        if not math.isfinite(x):
            return None
        exact = Fraction(repr(x))
    den = exact.denominator  # 2^a 5^b: its printed decimals are max(a, b)
    twos = (den & -den).bit_length() - 1
    fives = 0
    while den % 5 == 0 and den > 1:
        den //= 5
        fives += 1
    d = max(twos, fives, least)
    return int(exact * 10**d), d


def _ends(u: pd.Series, rounding: str) -> tuple[pd.Series, pd.Series, pd.Series, pd.Series]:
    """The interval of true values printing as u, in units of half a step: (lo, hi, lo_in, hi_in)."""
    if rounding == "half_even":
        even = (u % 2) == 0
        return 2 * u - 1, 2 * u + 1, even, even
    pos, neg = u > 0, u < 0
    if rounding == "half_up":
        return 2 * u - 1, 2 * u + 1, pos, neg
    # truncate: u > 0 [u, u + 1); u < 0 (u - 1, u]; u = 0 (-1, 1)
    lo = (2 * u).where(pos, 2 * u - 2)
    hi = (2 * u + 2).where(pos | (u == 0), 2 * u)
    lo = lo.where(u != 0, -2)
    return lo, hi, pos, neg


def instance_counts(prereg: Prereg, board: Table, bundle_dir: str, group: str | None) -> pd.Series:
    """Each leaderboard row's number of instance rows (of `group` only when named), board order."""
    assert board.frame is not None
    path = os.path.join(bundle_dir, prereg.instances)
    names = list(dict.fromkeys([prereg.row_id, *([prereg.group_by] if group else [])]))
    data = load_table(path, path, names).frame
    assert data is not None
    if group is not None:
        data = data[data[prereg.group_by] == group]
    counts = data[prereg.row_id].value_counts()
    ids = board.frame[prereg.row_id]
    return pd.Series(ids.map(counts).fillna(0).astype(int).tolist(), dtype=object)


def column_verdicts(f: Feasible, board: Table, counts: pd.Series | None = None) -> pd.DataFrame:
    """verdict, n, low and high of every row of one declared column (board order); `counts`:
    each row's instance rows, for a column declared over them."""
    assert board.frame is not None
    kind = board.kinds[f.column]
    printed = [_printed(v, kind, f.decimals) for v in board.frame[f.column].tolist()]
    if f.over_instances:
        assert counts is not None
        n = counts
    elif f.over_column is None:
        n = pd.Series([f.over] * len(printed), dtype=object)
    else:
        n = pd.Series(
            [None if is_null(v) else int(v) for v in board.frame[f.over_column].tolist()],
            dtype=object,
        )
    no_count = n.map(lambda v: v is None or v < 1)
    frame = pd.DataFrame({"n": n, "printed": pd.Series(printed, dtype=object)})
    frame["verdict"] = np.where(frame["printed"].isna(), NO_VALUE, np.where(no_count, NO_COUNT, ""))
    frame["low"] = ""
    frame["high"] = ""
    todo = frame[frame["verdict"] == ""]
    if len(todo):
        u = todo["printed"].map(lambda p: p[0]).astype(object)
        d = todo["printed"].map(lambda p: p[1]).astype(object)
        big_n = todo["n"].astype(object)
        lo, hi, lo_in, hi_in = _ends(u, f.rounding)
        den = 2 * f.scale * d.map(lambda e: 10**e).astype(object)  # S = end * N / den
        lo_num, hi_num = lo * big_n, hi * big_n
        first = (-((-lo_num) // den) + ((lo_num % den == 0) & ~lo_in).astype(int)).astype(object)
        last = (hi_num // den - ((hi_num % den == 0) & ~hi_in).astype(int)).astype(object)
        least, most = (f.lo * big_n).astype(object), (f.hi * big_n).astype(object)
        first_in = first.where(first >= least, least)
        last_in = last.where(last <= most, most)
        ok = first_in <= last_in
        # nearest on the grid below and above the interval (the grid ends when it lies outside)
        below = (first - 1).where(first - 1 <= most, most)
        above = (last + 1).where(last + 1 >= least, least)
        low = first_in.where(ok, below.where(below >= least, None))
        high = last_in.where(ok, above.where(above <= most, None))
        frame.loc[todo.index, "verdict"] = np.where(ok, FEASIBLE, INFEASIBLE)
        frame.loc[todo.index, "low"] = low.map(lambda v: "" if v is None or pd.isna(v) else str(v))
        frame.loc[todo.index, "high"] = high.map(
            lambda v: "" if v is None or pd.isna(v) else str(v)
        )
    return frame


def build(
    prereg: Prereg, board: Table, shown_ids: list[str], bundle_dir: str
) -> tuple[list[list[str]], set[tuple[int, str]]]:
    """feasibility.csv's rows (sorted) and the (row, column) cells found infeasible."""
    assert board.frame is not None
    rows: list[list[str]] = []
    infeasible: set[tuple[int, str]] = set()
    for name, f in prereg.feasibility.items():
        counts = (
            instance_counts(prereg, board, bundle_dir, f.over_group) if f.over_instances else None
        )
        frame = column_verdicts(f, board, counts)
        published = [format_value(v, board.kinds[name]) for v in board.frame[name].tolist()]
        for i, rec in enumerate(frame.itertuples(index=False)):
            n = "" if rec.n is None or pd.isna(rec.n) else str(rec.n)
            rows.append([shown_ids[i], name, published[i], n, rec.verdict, rec.low, rec.high])
            if rec.verdict == INFEASIBLE:
                infeasible.add((i, name))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows, infeasible
