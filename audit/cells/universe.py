"""Universes declared as tables of the bundle (docs/contract.md, Recipes), the referee's side.

``denominator: {universe: {ids: {file: F, column: K}}}`` names a parquet file of the
bundle folder. The lock hashes each such file with the bundle's other files (role
``universe:<F>``), so every job reads the bytes the lock hashed; the controls read
its ids through ``inlined``; preflight refuses a file or column that is not there
before the lock (``check_record``). The contestants read and check it themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit.cells.record import Prereg
from audit.errors import AuditError

ROLE = "universe:"  # the lock's role of a universe table: ROLE + its file name


def record_files(rec: Prereg) -> list[str]:
    """The universe tables' file names, each once, in prereg order, of a checked prereg's
    record (the lock's, the arm's)."""
    return list(dict.fromkeys(f for _, f, _ in rec.universe_tables()))


def _checked(bundle: str | Path, file: str, column: str) -> Path:
    """The table's path, once the file and its id column are there, once each (its footer
    only, the names as the file gives them: missing_column, then duplicate_column)."""
    path = Path(bundle, file)
    shown = f"{bundle}/{file}"
    if not path.is_file():
        raise AuditError(
            "missing_file", shown, "no such regular file (a universe table the prereg names)"
        )
    # read whole by the controls and by this check: bounded like the bundle's other
    # files (audit/bundles/parquet_bounds.py; too_large, unreadable), a FIFO refused
    from audit.bundles import parquet_bounds

    parquet_bounds.check(path, shown)
    # an encoding the contestants refuse, in their line (docs/contract.md, Types)
    from audit.bundles import parquet_encodings

    parquet_encodings.check(path, shown)
    from audit.bundles import parquet_columns

    names = parquet_columns.names(path, shown)  # unreadable: a footer that does not parse
    if column not in names:
        raise AuditError(
            "missing_column",
            shown,
            f"no column {column!r} (the universe's ids the prereg names); nothing was written",
        )
    for name in names:  # the first name given twice, in file order, as the contestants
        if names.count(name) > 1:
            raise AuditError(
                "duplicate_column",
                shown,
                f"column {name!r} occurs {names.count(name)} times; nothing was written",
            )
    return path


def _column(path: Path, shown: str, column: str) -> Any:
    """The id column (a polars Series), read whole; a data page that does not read (a
    corrupted or truncated page the footer and page headers do not show) is
    ``unreadable``, as both contestants refuse it when they read the ids."""
    import polars as pl

    try:
        return pl.read_parquet(path, columns=[column])[column]
    except Exception:  # noqa: BLE001 - polars raises several types for a broken page
        raise AuditError(
            "unreadable",
            shown,
            f"cannot read parquet data (column {column!r}, the universe's ids); nothing was"
            " written",
        ) from None


def read_ids(bundle: str | Path, file: str, column: str) -> list[str | None]:
    """The id column's values; a file or column that is not there is refused."""
    return _column(_checked(bundle, file, column), f"{bundle}/{file}", column).to_list()


def inlined(doc: Prereg, bundle: str | Path) -> Prereg:
    """The record with each universe declared as a table listing its ids instead (read
    from the bundle; a file or column that is not there is refused)."""
    if not doc.universe_tables():
        return doc
    return doc.with_universe_ids(
        {
            name: tuple(read_ids(bundle, file, column))
            for name, file, column in doc.universe_tables()
        }  # type: ignore[misc]
    )


def _judged(bundle: str, file: str, column: str) -> None:
    """The contestants' refusals of a universe table they would refuse after the lock, in
    their class and words (impl_pandas/universe.py, impl_pyarrow/universe.py): a column
    of kind null or other (unsupported_type: a date, a decimal, binary ...) or of another
    kind than string (bad_type: an Arrow duration is the INT64 the file holds, an
    integer), the kinds the contract's, from the file's own footer
    (audit/bundles/parquet_kinds.py); a data page that does not read (unreadable); no id,
    a null id or an id twice (bad_denominator)."""
    import polars as pl

    from audit.bundles import parquet_kinds

    path, shown = _checked(bundle, file, column), f"{bundle}/{file}"
    kind = parquet_kinds.kinds(path, shown)[column]
    if kind in ("null", "other"):
        what = "the null type" if kind == "null" else "a type outside the contract's kinds"
        raise AuditError("unsupported_type", shown, f"column {column!r} has {what} here")
    if kind != "string":
        raise AuditError("bad_type", shown, f"universe column '{column}' is {kind}, not string")
    ids = _column(path, shown, column).cast(pl.String)
    if ids.is_empty():
        raise AuditError("bad_denominator", shown, f"universe column '{column}' holds no id")
    if ids.null_count():
        raise AuditError("bad_denominator", shown, f"universe column '{column}' holds a null id")
    twice = ids.filter(ids.is_duplicated())
    if not twice.is_empty():
        raise AuditError(
            "bad_denominator",
            shown,
            f"universe column '{column}' holds id '{twice.min()}' more than once",
        )


def check_record(rec: Prereg, bundle: str) -> None:
    """Before the lock (preflight, then the lock itself): each universe table the checked
    prereg's record names is a file of the bundle holding the named column (missing_file,
    missing_column), of ids the contestants accept (unsupported_type, bad_type,
    bad_denominator: ``_judged``); one line, nothing written. Refused only after the
    lock, the table would leave a locked arm that no run completes and whose table cannot
    change (arm_locked)."""
    _check_all(bundle, rec.bundle.leaderboard, rec.universe_tables())


def _check_all(bundle: str, leaderboard: str, declared: list[tuple[str, str, str]]) -> None:
    if not Path(bundle, leaderboard).is_file():
        return  # a bundle a rule builds (the demo, a fetch): the lock checks it
    for _, file, column in declared:
        _judged(bundle, file, column)
