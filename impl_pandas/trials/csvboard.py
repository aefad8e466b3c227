"""A CSV leaderboard (trials contract section 4.3): the file's structure read with
Python's csv module, the declared types applied column by column with pandas string
methods. Nothing is guessed: every field is text until the prereg's type says otherwise."""

from __future__ import annotations

import csv
import io
import re

import pandas as pd

from ..errors import BAD_TYPE, UNREADABLE, InputError
from ..read import Table
from ..values import BOOLEAN, INTEGER, STRING

DECIMAL = "decimal"  # a published number kept as its text: its own decimals are its grid
KINDS = {"string": STRING, "integer": INTEGER, "decimal": DECIMAL, "boolean": BOOLEAN}
_PATTERNS = {"integer": r"-?[0-9]+", "decimal": r"-?[0-9]+(?:\.[0-9]+)?", "boolean": "true|false"}


def _in_int64(field: str) -> bool:
    """An integer field within the contract's integer, a signed 64-bit one (its digits
    counted first: int() refuses a text of over 4,300 digits)."""
    if re.fullmatch(_PATTERNS["integer"], field) is None:
        return True  # the pattern judges it (a superscript digit passes isdigit, not it)
    return len(field.lstrip("-").lstrip("0")) <= 19 and -(2**63) <= int(field) < 2**63


def load_csv(display: str, path: str) -> Table:
    """Header and fields as text (unreadable: not strict UTF-8, a byte-order mark, bad
    quoting, no header, a line with another number of fields than the header)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise InputError(UNREADABLE, display, f"cannot read: {exc.strerror or exc}") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raise InputError(UNREADABLE, display, "a byte-order mark: the CSV must be plain UTF-8")
    try:
        text = raw.decode("utf-8")
        # the contract bounds no field (the lock reads a CSV table of up to 1 GiB): no field
        # is longer than the text, whatever the csv module's default limit (131,072)
        csv.field_size_limit(max(csv.field_size_limit(), len(text)))
        lines = [r for r in csv.reader(io.StringIO(text, newline=""), strict=True) if r]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(UNREADABLE, display, f"not a readable CSV file: {exc}") from None
    if not lines:
        raise InputError(UNREADABLE, display, "no header line")
    names = lines[0]
    for i, fields in enumerate(lines[1:], start=1):
        if len(fields) != len(names):
            raise InputError(
                UNREADABLE,
                display,
                f"line {i + 1} has {len(fields)} fields, the header {len(names)}",
            )
    kinds = dict.fromkeys(names, STRING)
    if len(set(names)) != len(names):
        return Table(display, names, kinds, None)  # duplicate_column reports it
    frame = pd.DataFrame(lines[1:], columns=names, dtype=object)
    return Table(display, names, kinds, frame)


def apply_types(table: Table, types: dict[str, str]) -> Table:
    """The declared types (bad_type for a field that is not of its column's type; an
    empty field is null)."""
    assert table.frame is not None
    out = pd.DataFrame(index=table.frame.index)
    for name in table.names:
        declared = types[name]
        text = table.frame[name].astype("string")
        empty = text == ""
        if declared in _PATTERNS:
            bad = ~(text.str.fullmatch(_PATTERNS[declared]) | empty)
            if declared == "integer":
                bad = bad | (~bad & ~empty & ~text.map(_in_int64).astype(bool))
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                raise InputError(
                    BAD_TYPE,
                    table.display,
                    f"column '{name}' is declared {declared}; row {i} holds {text.iloc[i]!r}",
                )
        if declared == "integer":
            values = text.map(lambda v: None if v == "" else int(v))
        elif declared == "boolean":
            values = text.map(lambda v: None if v == "" else v == "true")
        else:  # string, decimal: the text itself
            values = text.map(lambda v: None if v == "" else str(v))
        out[name] = values.astype(object).where(~empty, None)
    kinds = {name: KINDS[types[name]] for name in table.names}
    return Table(table.display, table.names, kinds, out)
