"""A leaderboard bundle judged before the lock writes anything (docs/refusals.md, "Where
each class is refused"): what the prereg will do with the bundle, in the contestants'
order of classes. One place for both callers: the workflow's preflight (audit/preflight.py)
judges a shipped bundle while the workflow is read; the lock (audit/lock/cells.py) judges a
bundle a rule builds (the demo's, a Hub fetch), which is not there at preflight, once its
own bounded reading of each table passed. Each check raises an AuditError (one line, exit
2) and writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit.errors import AuditError

NESTED = ("List", "Array", "Struct", "Object", "Map")  # polars' names of nested types
# Polars' names of the other types the contract never reads outside a label
# (docs/contract.md, Types: kind other): dates, times, timestamps, DECIMAL, FLOAT16, and
# BYTE_ARRAY without a string annotation (binary; a FIXED_LEN_BYTE_ARRAY reads as it).
# Not here: Duration (an Arrow duration is a plain INT64 in the file: an integer) and
# Categorical / Enum (a dictionary-encoded STRING in the file: a string); the
# contestants decide those from the file's own schema. A duration as a mean's source is
# refused apart (check_mean_sources: bad_type).
SCALAR_OTHER = ("Date", "Datetime", "Time", "Decimal", "Float16", "Binary")
NULL_TYPE = "Null"  # the null logical type: every value null (kind null)


def _instance_names(rec: Any) -> list[str]:
    """The instance columns the prereg names, in the contract's order (row id, instance
    key, group, sources, population columns, universe id columns), without repeats."""
    b = rec.bundle
    names = [b.row_id, *b.instance_key]
    if b.group_by is not None:
        names.append(b.group_by)
    names += [m.source for m in rec.measured.values() if m.source]
    # the population columns of the policies a measured column uses, in first use: both
    # contestants read no other (a declared policy no column uses is not read)
    used = [rec.population_of(p) for m in rec.measured.values() for p in m.policies]
    names += [c for c in used if c]
    for m in rec.measured.values():  # a declared universe's id column
        u = m.denominator.universe if m.denominator is not None else None
        if u is not None and u.column:
            names.append(u.column)
    return list(dict.fromkeys(str(n) for n in names))


def _unread(path: Path) -> dict[str, str]:
    """Each top-level column of a parquet file of a type the contract reads nowhere but
    in a label (nested, another type of kind other, or the null type), with the type as
    polars names it; read from the footer alone. A file that cannot be read is left to
    the lock, which refuses it with its own class."""
    import polars as pl

    try:
        schema = pl.read_parquet_schema(path)
    except Exception:  # noqa: BLE001 - any unreadable file: the lock's refusal, not this one
        return {}
    unread = (*NESTED, *SCALAR_OTHER, NULL_TYPE)
    return {name: str(t) for name, t in schema.items() if type(t).__name__ in unread}


def _words(name: str, dtype: str) -> str:
    """The contestants' words for the column (docs/contract.md, Types)."""
    if dtype == NULL_TYPE:
        return f"column {name!r} has the null type here"
    return f"column {name!r} has a type outside the contract's kinds here"


def check_encodings(rec: Any, bundle: str) -> None:
    """unsupported_encoding, before the lock: a column chunk of the leaderboard, then of
    the instance table, listing an encoding the contract does not read (any column,
    named or not), in the contestants' line (audit/bundles/parquet_encodings.py). The
    file is readable, so the lock would hash it and the arm be locked before the
    contestants refused it. A file not there is the lock's (missing_file)."""
    from audit.bundles import parquet_encodings

    for role in ("leaderboard", "instances"):
        path = Path(bundle, rec.bundle.table(role))
        if path.is_file():
            parquet_encodings.check(path, f"{bundle}/{path.name}")


def _leaderboard_names(rec: Any) -> list[str]:
    """The leaderboard columns the prereg names, in the contract's order (row id,
    structural, no_antecedent, measured), without repeats."""
    return list(dict.fromkeys([rec.bundle.row_id, *rec.leaderboard_columns()]))


def check_columns(rec: Any, bundle: str) -> None:
    """missing_column, undeclared_column, duplicate_column, before the lock, in the
    contract's order (docs/contract.md: the class, then the file, leaderboard before
    instances): a column the prereg names that a table lacks, a leaderboard column the
    prereg does not classify (file order), a name a table gives twice. From each file's
    footer (audit/bundles/parquet_columns.py); the contestants' class, in the referee's
    words (theirs differ from each other). Before, the lock accepted the first two and
    both contestants refused them after it."""
    from audit.bundles import parquet_columns

    tables = []
    for role, wanted in (("leaderboard", _leaderboard_names(rec)), ("instances", None)):
        path = Path(bundle, rec.bundle.table(role))
        if not path.is_file():
            return  # a table not there: the lock's missing_file
        shown = f"{bundle}/{path.name}"
        tables.append((shown, parquet_columns.names(path, shown), wanted))
    tables[1] = (tables[1][0], tables[1][1], _instance_names(rec))
    for shown, present, wanted in tables:
        for name in wanted or []:
            if name not in present:
                raise AuditError(
                    "missing_column",
                    shown,
                    f"column {name!r} is not in the table (the prereg names it); nothing was"
                    " written",
                )
    lb_shown, lb_present, lb_wanted = tables[0]
    declared = set(lb_wanted or [])
    for name in lb_present:
        if name not in declared:
            raise AuditError(
                "undeclared_column",
                lb_shown,
                f"column {name!r} is not classified by the prereg (structural, no_antecedent or"
                " measured); nothing was written",
            )
    for shown, present, _ in tables:
        for name in present:
            if present.count(name) > 1:
                raise AuditError(
                    "duplicate_column",
                    shown,
                    f"column {name!r} occurs {present.count(name)} times; nothing was written",
                )


def check_column_types(rec: Any, bundle: str) -> None:
    """unsupported_type, before the lock: a leaderboard column (in file order) that is
    not a label, then an instance column the prereg names (in the contract's order),
    of a type the contract does not read there: nested (list, array, struct, map), a
    date, time, timestamp, decimal, half float or binary, or the null type.

    A label (structural or no_antecedent, not the row id) is never read as values,
    so it may be of any type (docs/contract.md, Types). Anywhere else both contestants
    refuse such a column as unsupported_type after the lock; here it is the same class
    and words for the same column, naming the user's bundle file, before anything is
    written."""
    b = rec.bundle
    labels = {*rec.structural, *rec.no_antecedent}
    labels.discard(b.row_id)
    lb, inst = Path(bundle, b.leaderboard), Path(bundle, b.instances)
    places: list[tuple[Path, list[str] | None]] = [(lb, None), (inst, _instance_names(rec))]
    for path, names in places:
        if not path.is_file():
            continue
        unread = _unread(path)
        for name in names if names is not None else [n for n in unread if n not in labels]:
            if name in unread:
                label = (
                    "; a label (structural or no_antecedent) may be any type"
                    if names is None
                    else ""
                )
                raise AuditError(
                    "unsupported_type",
                    f"{bundle}/{path.name}",
                    f"{_words(name, unread[name])} ({unread[name]}; docs/contract.md, Types)"
                    f"{label}; nothing was written",
                )
    check_mean_sources(rec, bundle)


NUMBERS = ("integer", "floating")


def check_kinds(rec: Any, bundle: str) -> None:
    """bad_type, before the lock, for a column whose kind does not fit its role, as both
    contestants judge it from the schemas alone (docs/contract.md, bad_type), in their
    order: a measured leaderboard column of any recipe but single_value (rate, mean, sum,
    mean_of_columns) that is not integer or floating; a column declared under ``feasibility`` that is not integer
    or floating, then a feasibility count column (``over: {column}``) that is not integer;
    the row id of another kind in the instance table than in the leaderboard; a rate's
    source that is not boolean, a mean's or a sum's that is not integer or floating
    (source by source, in prereg order); a universe's id column that is not string; a
    mean policy's population column that is not boolean. Kinds are the file's own
    (audit/bundles/parquet_kinds.py, from the footer). A column of kind other or null in
    a place unsupported_type covers was refused before; a feasibility column may be a
    label, of any kind, so there any kind but integer or floating is bad_type. What
    needs the values (an infinite source value) is check_values'."""
    from audit.bundles import parquet_kinds

    b, measured = rec.bundle, rec.measured
    lb, inst = Path(bundle, b.leaderboard), Path(bundle, b.instances)
    if not (lb.is_file() and inst.is_file()):
        return
    lb_shown, in_shown = f"{bundle}/{lb.name}", f"{bundle}/{inst.name}"
    lb_kinds = parquet_kinds.kinds(lb, lb_shown)
    in_kinds = parquet_kinds.kinds(inst, in_shown)

    def fits(k: str | None, want: tuple[str, ...]) -> bool:
        return k is None or k in want or k in ("other", "null")  # None: not there

    for name, m in measured.items():
        k = lb_kinds.get(str(name))
        if m.recipe != "single_value" and not fits(k, NUMBERS):
            raise AuditError(
                "bad_type",
                lb_shown,
                f"measured column {name!r} is {k}, not integer or floating (docs/contract.md,"
                " bad_type); nothing was written",
            )
    for name in rec.feasibility:
        k = lb_kinds.get(str(name))
        if k is not None and k not in NUMBERS:
            raise AuditError(
                "bad_type",
                lb_shown,
                f"feasibility column {name!r} is {k}, not integer or floating; nothing was written",
            )
    for f in rec.feasibility.values():
        count = f.over[1] if isinstance(f.over, tuple) and f.over[0] == "column" else None
        k = lb_kinds.get(str(count)) if count is not None else None
        if k is not None and k != "integer":
            raise AuditError(
                "bad_type",
                lb_shown,
                f"feasibility count column {count!r} is {k}, not integer; nothing was written",
            )
    row_id = b.row_id
    lb_kind, in_kind = lb_kinds.get(row_id), in_kinds.get(row_id)
    if lb_kind and in_kind and lb_kind != in_kind:
        raise AuditError(
            "bad_type",
            in_shown,
            f"row id column {row_id!r} is {in_kind} here but {lb_kind} in the leaderboard;"
            " nothing was written",
        )
    for name, m in measured.items():
        source, recipe = m.source, m.recipe
        k = in_kinds.get(str(source)) if source is not None else None
        if recipe == "rate" and not fits(k, ("boolean",)):
            what, want = "rate", "boolean"
        elif recipe in ("mean", "sum") and not fits(k, NUMBERS):
            what, want = "mean", "integer or floating"  # a sum reads its source as a mean
        else:
            continue
        raise AuditError(
            "bad_type",
            in_shown,
            f"{what} source {source!r} (for {name!r}) is {k}, not {want}; nothing was written",
        )
    for name, m in measured.items():
        u = m.denominator.universe if m.denominator is not None else None
        k = in_kinds.get(u.column) if u is not None else None
        if u is not None and not fits(k, ("string",)):
            raise AuditError(
                "bad_type",
                in_shown,
                f"universe column {u.column!r} (for {name!r}) is {k}, not string; nothing was"
                " written",
            )
    for name, m in measured.items():
        if m.recipe not in ("mean", "sum"):
            continue
        for policy in m.policies:
            column = rec.population_of(policy)
            k = in_kinds.get(column) if column is not None else None
            if column is not None and not fits(k, ("boolean",)):
                raise AuditError(
                    "bad_type",
                    in_shown,
                    f"population column {column!r} (policy {policy!r} of {name!r}) is {k}, not"
                    " boolean; nothing was written",
                )


def check_mean_sources(rec: Any, bundle: str) -> None:
    """bad_type, before the lock: a mean's source column that is a time span (polars'
    Duration). Arrow writes a duration as a bare INT64 with its unit only in Arrow's own
    metadata, so a reader of the parquet schema alone sees an integer and would average
    microseconds as numbers; a mean's source is an integer or floating column
    (docs/contract.md, Recipes), and a duration is neither. Elsewhere (a label, an id)
    the contestants read it from the file's own schema."""
    import polars as pl

    inst = Path(bundle, rec.bundle.instances)
    if not inst.is_file():
        return
    try:
        schema = pl.read_parquet_schema(inst)
    except Exception:  # noqa: BLE001 - any unreadable file: the lock's refusal, not this one
        return
    for name, m in rec.measured.items():
        source = m.source if m.recipe == "mean" else None
        dtype = schema.get(str(source)) if source is not None else None
        if dtype is not None and type(dtype).__name__ == "Duration":
            raise AuditError(
                "bad_type",
                f"{bundle}/{inst.name}",
                f"column {source!r}, the source of the mean {name!r}, is a duration ({dtype}),"
                " not integer or floating (docs/contract.md, Recipes); nothing was written",
            )


def check_universe_tables(rec: Any, bundle: str) -> None:
    """missing_file / missing_column, before the lock: a universe declared as a table
    (``ids: {file, column}``) whose file is not in the bundle or lacks the column."""
    from audit.cells.universe import check_record

    check_record(rec, bundle)


def check_control_rows(rec: Any, prereg: str, bundle: str) -> None:
    """bad_prereg, before the lock: a control whose declared target row (row_id, or a
    swap's row_ids) is not a row of the leaderboard."""
    from audit.core.disclosure import leaderboard_ids

    named = [
        (name, str(r))
        for name, c in sorted(rec.controls.items())
        if isinstance(c.target, tuple)  # the rows it names (not seeded, not a reorder)
        for r in c.target
    ]
    if not named:
        return
    table = Path(bundle, rec.bundle.leaderboard)
    if not table.is_file():
        return  # not there: the lock's missing_file
    try:
        ids = leaderboard_ids(table, [rec.bundle.row_id], None)
    except AuditError:
        return  # the row id column missing: the contestants' missing_column, as before
    for name, row in named:
        if row not in ids:
            raise AuditError(
                "bad_prereg",
                prereg,
                f"control {name!r} targets row {row!r}, which is not a row of the leaderboard"
                f" ({table}); nothing was written",
            )


def check(rec: Any, prereg: str, bundle: str) -> None:
    """What an arm not yet locked will do with its leaderboard bundle, before the lock
    writes anything, in the contestants' order of classes (docs/contract.md, Command line):
    a leaderboard's encodings, its strings (unreadable), columns, column types, the
    instance table's named strings (unreadable), keys (duplicate_key), kinds and infinite
    sources (bad_type), universe tables, single values (ambiguous_value), declared
    denominators (bad_denominator, as the contestants judge them once the values are
    recomputed) and controls' rows (unsupported_encoding, unreadable, missing_column,
    undeclared_column, duplicate_column, unsupported_type, duplicate_key, bad_type,
    missing_file, bad_denominator, ambiguous_value, bad_prereg); each table's values read
    once (audit/cells/bundle_values.py). ``rec``: the checked prereg's frozen record. A
    table not there is left to the lock (its missing_file)."""
    check_encodings(rec, bundle)
    tables = _values(rec, bundle)
    if tables is not None:
        tables.read_leaderboard()
    check_columns(rec, bundle)
    check_column_types(rec, bundle)
    if tables is not None:
        tables.read_instances(_instance_names(rec))
        tables.check_keys()
    check_kinds(rec, bundle)
    if tables is not None:
        tables.check_infinite()
    check_universe_tables(rec, bundle)
    if tables is not None:
        tables.check_single_values()
        tables.check_denominators()
    check_control_rows(rec, prereg, bundle)


def _values(rec: Any, bundle: str) -> Any:
    """The bundle's tables for the checks of their values, or None when one is not there
    (the lock's missing_file)."""
    from audit.bundles import parquet_kinds
    from audit.cells.bundle_values import Tables

    lb, inst = Path(bundle, rec.bundle.leaderboard), Path(bundle, rec.bundle.instances)
    if not (lb.is_file() and inst.is_file()):
        return None
    return Tables(
        rec,
        bundle,
        parquet_kinds.kinds(lb, f"{bundle}/{lb.name}"),
        parquet_kinds.kinds(inst, f"{bundle}/{inst.name}"),
    )
