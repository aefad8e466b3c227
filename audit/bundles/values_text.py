"""A bundle's value as the contestants write it (docs/contract.md, Values): the referee's one
formatter of a value by its kind, and so of a leaderboard row's name.

A row id is the row's name as written: cells.csv, the census and the report name a row
by this text, and so do the referee and the controls wherever they name one (a control's
prediction and selection, a prereg's named row, the disclosure, the preflight's
``duplicate_key``, which calls two row ids written alike one id). A string is itself, an
integer its digits, a boolean ``true`` / ``false``, a float six decimals of its exact
binary value (``-0.000000`` written ``0.000000``; ``nan``, ``inf``, ``-inf``).
"""

from __future__ import annotations

import math
from typing import Any


def written(value: Any, kind: str) -> str:
    """A value of the contract's ``kind`` as the contestants write it (a null: empty)."""
    if value is None:
        return ""
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "floating":  # six decimals of the exact binary value; nan, inf, -inf
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        text = f"{value:.6f}"
        return "0.000000" if text == "-0.000000" else text
    return str(value)


def by_type(value: Any) -> str:
    """A non-null value read by polars (or Python) as the contestants write it: ``written``
    by the kind its Python type is read as (a bool boolean, a float floating, an int
    integer; a string, and anything else, its ``str``). A single_value cell is written
    so (docs/contract.md, Recipes and Values): the controls predict it with this text."""
    if isinstance(value, bool):
        return written(value, "boolean")
    if isinstance(value, float):
        return written(value, "floating")
    return str(value)


def row_name(value: Any) -> str | None:
    """A leaderboard row id read by polars (or Python) as the row's name (``by_type``;
    a string its own text, today's). A null names no row: None."""
    return None if value is None else by_type(value)
