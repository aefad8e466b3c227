"""Table checks against the preregistration, in the contract's order of classes."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .errors import (
    BAD_TYPE,
    DUPLICATE_COLUMN,
    DUPLICATE_KEY,
    MISSING_COLUMN,
    UNDECLARED_COLUMN,
    UNSUPPORTED_TYPE,
    InputError,
)
from .prereg.leaderboard import NUMERIC_RECIPES, Prereg
from .read import Table
from .values import FLOATING, NULL_KIND, NUMERIC_KINDS, OTHER, format_value


def leaderboard_names(prereg: Prereg) -> list[str]:
    """Leaderboard columns the prereg names, in the order they are checked."""
    return [prereg.row_id, *prereg.structural, *prereg.no_antecedent, *prereg.measured]


def instance_names(prereg: Prereg) -> list[str]:
    """Instance columns the prereg names, in the order they are checked."""
    names = [prereg.row_id, *prereg.instance_key, prereg.group_by]
    names += [m.source for m in prereg.measured.values() if m.source is not None]
    names += [c for m in prereg.measured.values() for c in m.population.values()]
    names += [m.universe.column for m in prereg.measured.values() if m.universe is not None]
    return names


def missing_columns(table: Table, wanted: list[str]) -> None:
    """missing_column for the first named column absent from the table."""
    present = set(table.names)
    for name in wanted:
        if name not in present:
            raise InputError(MISSING_COLUMN, table.display, f"column '{name}' is not in the table")


def undeclared_columns(
    table: Table, kinds: dict[str, str], unpublished: tuple[str, ...] = ()
) -> None:
    """undeclared_column for the first leaderboard column the prereg does not classify
    (`kinds`, a kind_of()), or declares not published (trials v1, section 16.5)."""
    for name in table.names:
        if name in unpublished:  # declared not published, yet the table has it
            raise InputError(
                UNDECLARED_COLUMN, table.display, f"column '{name}' is declared published: false"
            )
        if name not in kinds:
            raise InputError(
                UNDECLARED_COLUMN, table.display, f"column '{name}' is not classified by the prereg"
            )


def duplicate_columns(table: Table) -> None:
    """duplicate_column for the first name that occurs twice."""
    counts = Counter(table.names)
    for name in table.names:
        if counts[name] > 1:
            raise InputError(
                DUPLICATE_COLUMN, table.display, f"column '{name}' occurs {counts[name]} times"
            )


def unsupported_types(table: Table, names: list[str], labels: set[str]) -> None:
    """unsupported_type for the first of `names` whose type the contract does not read.

    A column in `labels` (structural or no_antecedent, not the row id) is never read
    as values: any type, its cells written empty when the kind is null or other."""
    for name in names:
        kind = table.kinds[name]
        if name in labels or kind not in (OTHER, NULL_KIND):
            continue
        shown = "a type outside the contract's kinds" if kind == OTHER else "the null type"
        raise InputError(UNSUPPORTED_TYPE, table.display, f"column {name!r} has {shown} here")


def leaderboard_unsupported(table: Table, prereg: Prereg) -> None:
    """unsupported_type, leaderboard: every column in file order; a label may be any type."""
    labels = {*prereg.structural, *prereg.no_antecedent} - {prereg.row_id}
    unsupported_types(table, table.names, labels)


def instance_unsupported(table: Table, prereg: Prereg) -> None:
    """unsupported_type, instance table: the columns the prereg names, in their checking order."""
    unsupported_types(table, list(dict.fromkeys(instance_names(prereg))), set())


def nan_keys(table: Table, key: list[str], what: str) -> None:
    """bad_type for a NaN in a key column of kind floating (docs/contract.md: a NaN equals no
    key): the first such row in file order (its first such column in key order)."""
    assert table.frame is not None
    first: tuple[int, str] | None = None
    for name in key:
        if table.kinds[name] != FLOATING:
            continue
        nan = np.fromiter(
            (isinstance(v, float) and math.isnan(v) for v in table.frame[name]), dtype=bool
        )
        if nan.any() and (first is None or int(np.argmax(nan)) < first[0]):
            first = (int(np.argmax(nan)), name)
    if first is not None:
        row, name = first
        raise InputError(BAD_TYPE, table.display, f"{what} column {name!r} holds NaN at row {row}")


def duplicate_keys(table: Table, key: list[str], what: str) -> None:
    """duplicate_key for the first row whose key an earlier row already has."""
    assert table.frame is not None
    dup = table.frame.duplicated(subset=key, keep="first").to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        shown = ", ".join(
            format_value(table.frame.at[row, name], table.kinds[name]) for name in key
        )
        raise InputError(DUPLICATE_KEY, table.display, f"{what} ({shown}) occurs more than once")


def duplicate_row_ids(table: Table, row_id: str) -> None:
    """duplicate_key for the first leaderboard row whose row id an earlier row has: the
    row's name as written (docs/contract.md, Values), so two floats written alike (1e-07
    and 2e-07, both 0.000000) are one id, as are 0.0 and -0.0; nulls stay nulls (one id,
    none of the texts)."""
    assert table.frame is not None
    ids = table.frame[row_id]
    kind = table.kinds[row_id]
    written = ids.map(lambda v: format_value(v, kind)).where(ids.notna(), None)
    dup = written.duplicated(keep="first").to_numpy()
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        shown = format_value(ids.iat[row], kind)
        raise InputError(DUPLICATE_KEY, table.display, f"row id ({shown}) occurs more than once")


def leaderboard_types(table: Table, prereg: Prereg) -> None:
    """bad_type for a measured numeric leaderboard column that is not integer or floating."""
    for col in prereg.measured.values():
        if col.recipe in NUMERIC_RECIPES and table.kinds[col.name] not in NUMERIC_KINDS:
            raise InputError(
                BAD_TYPE,
                table.display,
                f"measured column '{col.name}' is {table.kinds[col.name]}, not integer or floating",
            )


def row_id_kinds(board: Table, instances: Table, prereg: Prereg) -> None:
    """bad_type (instance table) when the row id column's kind differs between the tables.

    Ids of different kinds never compare equal, so no row could find its instances."""
    lb_kind, in_kind = board.kinds[prereg.row_id], instances.kinds[prereg.row_id]
    if lb_kind != in_kind:
        raise InputError(
            BAD_TYPE,
            instances.display,
            f"row id column '{prereg.row_id}' is {in_kind} here but {lb_kind} in the leaderboard",
        )
