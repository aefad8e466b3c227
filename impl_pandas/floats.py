"""Writing a double as the contract spells it (no pandas: the shard commands use it too)."""

from __future__ import annotations

import math


def format_float(x: float) -> str:
    """Six decimals of the exact binary value; -0 as 0; nan, inf, -inf."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = f"{x:.6f}"
    return "0.000000" if text == "-0.000000" else text


def format_float_or_empty(x: float | None) -> str:
    """format_float, or the empty field for a value that is absent (None)."""
    return "" if x is None else format_float(x)
