"""A universe declared as a table of the bundle (docs/contract.md, Recipes).

`denominator: {universe: {ids: {file, column}}}`: the ids are the values of one
string column of a parquet file in the bundle folder. Each such table is read here,
after the instance table's checks and before any value is recomputed, and the
column's universe becomes the set of its ids (N = their number), as if listed.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pandas as pd

from . import checks, read
from .errors import BAD_DENOMINATOR, BAD_TYPE, InputError
from .prereg.leaderboard import Measured, Prereg
from .values import STRING


def _ids(path: str, column: str) -> frozenset[str]:
    """The table's ids, refused in the contract's order."""
    read.require_file(path, path)  # missing_file
    footer = read.load_schema(path, path)  # unreadable, unsupported_encoding
    checks.missing_columns(footer, [column])  # missing_column
    checks.duplicate_columns(footer)  # duplicate_column
    checks.unsupported_types(footer, [column], set())  # unsupported_type
    kind = footer.kinds[column]
    if kind != STRING:
        raise InputError(BAD_TYPE, path, f"universe column '{column}' is {kind}, not string")
    table = read.load_table(path, path, [column])  # the id column alone: no other is read
    assert table.frame is not None
    ids: pd.Series = table.frame[column]
    if ids.empty:
        raise InputError(BAD_DENOMINATOR, path, f"universe column '{column}' holds no id")
    if ids.isna().any():
        raise InputError(BAD_DENOMINATOR, path, f"universe column '{column}' holds a null id")
    repeated = ids[ids.duplicated(keep=False)]
    if not repeated.empty:
        first = min(repeated.tolist())
        raise InputError(
            BAD_DENOMINATOR, path, f"universe column '{column}' holds id '{first}' more than once"
        )
    return frozenset(ids.tolist())


def resolve(prereg: Prereg, bundle_dir: str) -> Prereg:
    """The prereg with each universe declared as a table read into its ids, columns in
    prereg order."""
    measured: dict[str, Measured] = {}
    for name, col in prereg.measured.items():
        universe = col.universe
        if universe is not None and universe.table is not None:
            file, column = universe.table
            ids = _ids(os.path.join(bundle_dir, file), column)
            col = replace(col, fixed=len(ids), universe=replace(universe, ids=ids))
        measured[name] = col
    return replace(prereg, measured=measured)
