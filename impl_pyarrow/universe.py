"""A universe declared as a table of the bundle (docs/contract.md, Recipes).

`denominator: {universe: {ids: {file, column}}}` names one string column of a
parquet file in the bundle folder. After the instance table's checks and before
anything is recomputed, each such column is read with pyarrow and counted in plain
Python; the measured column then holds those ids (N = how many), as if listed.
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from . import checks
from .errors import InputError
from .prereg.cells import Measured, Prereg
from .read import bundle_path, open_parquet, read_columns, require_file
from .schema import kinds


def read_ids(path: str, column: str) -> frozenset[str]:
    """The ids, each check in the contract's order."""
    require_file(path)
    pf = open_parquet(path)
    names = pf.schema_arrow.names
    checks.missing_column([column], names, path)
    checks.duplicate_column(names, path)
    kind = kinds(pf)[column]
    if kind in ("other", "null"):
        what = "the null type" if kind == "null" else "a type outside the contract's kinds"
        raise InputError("unsupported_type", path, f"column {column!r} has {what} here")
    if kind != "string":
        raise InputError("bad_type", path, f"universe column '{column}' is {kind}, not string")
    values = read_columns(path, [column]).column(column).to_pylist()
    if not values:
        raise InputError("bad_denominator", path, f"universe column '{column}' holds no id")
    if None in values:
        raise InputError("bad_denominator", path, f"universe column '{column}' holds a null id")
    twice = [v for v, n in Counter(values).items() if n > 1]
    if twice:
        raise InputError(
            "bad_denominator",
            path,
            f"universe column '{column}' holds id '{min(twice)}' more than once",
        )
    return frozenset(values)


def with_tables(pr: Prereg, bundle_dir: str) -> Prereg:
    """``pr`` with every universe declared as a table read (columns in prereg order)."""
    measured: dict[str, Measured] = {}
    for name, m in pr.measured.items():
        u = m.universe
        if u is not None and u.table is not None:
            ids = read_ids(bundle_path(bundle_dir, u.table[0]), u.table[1])
            m = dataclasses.replace(m, fixed=len(ids), universe=dataclasses.replace(u, ids=ids))
        measured[name] = m
    return dataclasses.replace(pr, measured=measured)
