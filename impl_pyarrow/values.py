"""Writing values as the contract prints them, and reading published numbers exactly."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pyarrow as pa

from .formatting import format_float, format_fraction

__all__ = [
    "base_type",
    "format_float",
    "format_fraction",
    "format_value",
    "is_number_type",
    "published_decimal",
    "python_list",
]


def base_type(typ: pa.DataType) -> pa.DataType:
    """The value type of a dictionary type, else the type itself."""
    if pa.types.is_dictionary(typ):
        return typ.value_type
    return typ


def is_number_type(typ: pa.DataType) -> bool:
    """Integer or floating (booleans are neither)."""
    typ = base_type(typ)
    return pa.types.is_integer(typ) or pa.types.is_floating(typ)


def python_list(column: pa.ChunkedArray | pa.Array) -> list[Any]:
    """Column values as Python objects; half floats go through float32 (exact)."""
    if pa.types.is_float16(base_type(column.type)):
        column = column.cast(pa.float32())
    return column.to_pylist()


def format_value(value: Any, typ: pa.DataType) -> str:
    """A published value written by its schema type."""
    if value is None:
        return ""
    typ = base_type(typ)
    if pa.types.is_boolean(typ):
        return "true" if value else "false"
    if pa.types.is_integer(typ):
        return str(int(value))
    if pa.types.is_floating(typ):
        return format_float(float(value))
    if isinstance(value, str):
        return value
    return str(value)


def published_decimal(value: Any, typ: pa.DataType) -> Fraction | None:
    """The published number as an exact decimal: `repr` of the float, the integer itself.

    None for null, NaN and infinities.
    """
    if value is None:
        return None
    typ = base_type(typ)
    if pa.types.is_integer(typ):
        return Fraction(int(value))
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        return None
    return Fraction(repr(x))  # narrower floats were widened to double: repr of the double
