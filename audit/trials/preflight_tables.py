"""A trials arm's leaderboard and trial table (or registry table) judged before the lock,
by the rules both contestants apply to them (docs/trials-contract.md section 5), in the
contract's order: missing_column (leaderboard, then the source table), undeclared_column
and duplicate_column (leaderboard), duplicate_column (source), bad_type (a CSV field,
the leaderboard's columns, the source's), bad_key (leaderboard, source), duplicate_key
(leaderboard, source), unknown_row, bad_value (the source). The first problem wins.

The contestants keep their own checks; this is the referee's reading of the same rules,
with polars and the CSV reader the lock digests with, so that such a table is refused
before anything is written rather than after the lock by both contestants (which left
a locked arm whose corrected table was arm_locked). A parquet table's kinds are the
contract's (docs/contract.md, Types, which the trials contract keeps), read from the
file's own footer (audit/bundles/parquet_kinds.py): a date or a decimal is of kind
other, the null type of kind null, a categorical (a STRING in the file) a string, a half
float (FLOAT16) other and an Arrow duration (a plain INT64 in the file) an integer, as both
contestants place them. A column of kind integer is judged by the integers the file
stores (``stored_values``): a duration in seconds too, which polars reads as milliseconds
times 1000. A file that does not read, which the lock refuses, stops the judging there:
the lock decides it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from audit.errors import AuditError
from audit.trials.record import Leaderboard, Prereg, Source

# docs/trials-contract.md section 5 (the trial table's columns the contestants read)
TRIAL_COLUMNS = ("run", "task", "trial_id", "copy", "status", "reward", "started_at")
STATUSES = ("scored", "errored", "unscored")
# section 2.4: a timestamp as the adapter writes it
CANONICAL_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
NOTHING = "; nothing was written"

# the adapter's trial table (in memory, its own schema): polars' dtypes whose kind is
# certain to both contestants' readers; any other dtype is not judged here
KINDS = {
    "Boolean": "boolean",
    **dict.fromkeys(
        ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64"), "integer"
    ),
    "Float32": "floating",
    "Float64": "floating",
    "String": "string",
}
# a CSV column's declared type (4.3) as a kind: a decimal is a number printed as text
CSV_KINDS = {"string": "string", "integer": "integer", "decimal": "decimal", "boolean": "boolean"}


class Unjudged(Exception):
    """A table this reading cannot judge further: the contestants (or the lock) decide."""


@dataclass
class Table:
    """One table as the checks see it: its shown name, its column names in file order
    (a name given twice kept twice), each column's kind (None: not one judged here) and
    its values as Python objects, read when first asked for."""

    shown: str
    names: list[str]
    read_kinds: Callable[[], Mapping[str, str | None]]
    column: Callable[[str], list[Any]]
    csv: tuple[Mapping[str, str], list[str], list[list[str]]] | None = None  # types, header, body
    _cache: dict[str, list[Any]] = field(default_factory=dict)

    def kinds(self) -> Mapping[str, str | None]:
        try:
            return self.read_kinds()
        except Exception:  # noqa: BLE001 - a schema polars cannot read: the contestants'
            raise Unjudged(self.shown) from None

    def values(self, name: str) -> list[Any]:
        if name not in self._cache:
            try:
                self._cache[name] = self.column(name)
            except AuditError:
                raise
            except Exception:  # noqa: BLE001 - a column polars cannot read: the contestants'
                raise Unjudged(name) from None
        return self._cache[name]


def frame_table(df: Any, shown: str) -> Table:
    """A polars DataFrame (the adapter's trial table, in memory) as a Table."""
    return Table(
        shown,
        list(df.columns),
        lambda: {n: KINDS.get(type(t).__name__) for n, t in df.schema.items()},
        lambda n: df.get_column(n).to_list(),
    )


def parquet_table(path: str, shown: str) -> Table:
    """A parquet file of the bundle: its names from the footer (audit/bundles/parquet_columns.py,
    which keeps a name given twice), its kinds the contract's from the footer (``file_kinds``),
    values read per column (``stored_values``)."""
    from audit.bundles import parquet_columns

    names = parquet_columns.names(path, shown)
    return Table(
        shown,
        names,
        lambda: file_kinds(path, shown),
        lambda n: stored_values(path, shown, n),
    )


def stored_values(path: str, shown: str, name: str) -> list[Any]:
    """A column's values as the file stores them: one of kind integer that polars reads
    otherwise, through Arrow's stored schema (an Arrow duration, a plain INT64 in the
    file, in any unit: one in seconds polars reads times 1000, wrapping past the 64-bit
    range), as the integers stored (audit/bundles/parquet_stored.py)."""
    from audit.bundles import parquet_stored

    return parquet_stored.read(path, [name], shown).get_column(name).to_list()


def file_kinds(path: str, shown: str) -> dict[str, str | None]:
    """Each column's kind as the contract defines it, from the file's own schema
    (audit/bundles/parquet_kinds.py: boolean, integer, floating, string, null, other)."""
    from audit.bundles import parquet_kinds

    return dict(parquet_kinds.kinds(path, shown))


def csv_table(path: str, shown: str, types: Mapping[str, str]) -> Table:
    """A CSV leaderboard (section 4.3), read as the lock reads it (audit/bundles/digest.py):
    the kinds are the declared types, the values the fields under them."""
    from audit.bundles.digest import csv_rows, csv_value

    header, body = csv_rows(path)

    def column(name: str) -> list[Any]:
        j = header.index(name)
        return [csv_value(types[name], r[j]) for r in body]

    kinds = {n: CSV_KINDS.get(types.get(n, "")) for n in header}
    return Table(shown, header, lambda: kinds, column, (types, header, body))


def _bad(kind: str, table: Table, detail: str) -> AuditError:
    return AuditError(kind, table.shown, detail + NOTHING)


def leaderboard_names(board: Leaderboard) -> list[str]:
    """The leaderboard columns the prereg names (row key, structural, no_antecedent, the
    published measured), in that order, without repeats."""
    published = [n for n, c in board.measured.items() if c.published]
    return list(
        dict.fromkeys([*board.row_key, *board.structural, *board.no_antecedent, *published])
    )


def source_names(src: Source) -> list[str]:
    """The source table's columns the contestants read (a registry's as the prereg names
    them; a trial table's the contract's)."""
    if src.kind == "trials":
        return list(TRIAL_COLUMNS)
    named = [*src.entry, src.task, src.score, src.trials, src.pass_count, src.perfect_count]
    return list(dict.fromkeys(str(n) for n in named))


def missing_column(table: Table, wanted: list[str]) -> None:
    for name in wanted:
        if name not in table.names:
            raise _bad("missing_column", table, f"column {name!r} is not in the table")


def undeclared_column(board: Leaderboard, table: Table) -> None:
    published = {n for n, c in board.measured.items() if c.published}
    declared = {*board.structural, *board.no_antecedent, *published}
    for name in table.names:
        if name in board.measured and name not in declared:
            raise _bad("undeclared_column", table, f"column {name!r} is declared published: false")
        if name not in declared:
            raise _bad("undeclared_column", table, f"column {name!r} is not classified")


def duplicate_column(table: Table) -> None:
    seen: set[str] = set()
    for name in table.names:
        if name in seen:
            raise _bad("duplicate_column", table, f"column {name!r} occurs twice")
        seen.add(name)


def csv_fields(table: Table) -> None:
    """bad_type: a CSV field that does not match its column's declared type (file order,
    then row order)."""
    from audit.bundles.digest import csv_field_ok

    if table.csv is None:
        return
    types, header, body = table.csv
    for j, name in enumerate(header):
        for i, r in enumerate(body):
            if not csv_field_ok(types[name], r[j]):
                raise _bad(
                    "bad_type",
                    table,
                    f"column {name!r} is declared {types[name]}; row {i} holds {r[j]!r}",
                )


def _expect(table: Table, kinds: Mapping[str, str | None], name: str, want: tuple[str, ...]):
    k = kinds.get(name)
    if k is None:
        raise Unjudged(name)
    if k not in want:
        raise _bad("bad_type", table, f"column {name!r} is {k}, expected {' or '.join(want)}")


def leaderboard_types(board: Leaderboard, table: Table) -> None:
    """bad_type: a row key column not string; a published measured column not integer or
    floating (a CSV column declared decimal is a number)."""
    kinds = table.kinds()
    for name in board.row_key:
        _expect(table, kinds, name, ("string",))
    for name, col in board.measured.items():
        if col.published:
            _expect(table, kinds, name, ("integer", "floating", "decimal"))


def source_types(src: Source, table: Table) -> None:
    """bad_type for the registry's or the trial table's columns (section 5)."""
    kinds = table.kinds()
    if src.kind == "registry":
        for name in (*src.entry, str(src.task)):
            _expect(table, kinds, name, ("string",))
        _expect(table, kinds, str(src.score), ("integer", "floating"))
        for name in (src.trials, src.pass_count, src.perfect_count):
            _expect(table, kinds, str(name), ("integer",))
        return
    for name in ("run", "task", "trial_id", "status", "started_at"):
        _expect(table, kinds, name, ("string",))
    _expect(table, kinds, "copy", ("integer",))
    _expect(table, kinds, "reward", ("floating",))
    if "verifier_broken" in table.names:
        _expect(table, kinds, "verifier_broken", ("boolean",))
    if "reward_regraded" in table.names:
        _expect(table, kinds, "reward_regraded", ("floating",))


def key_values(table: Table, names: tuple[str, ...], bar: bool) -> list[list[Any]]:
    """bad_key: a null in a key column, or (ids joined by "|") a value holding "|"."""
    cols = []
    for name in names:
        values = table.values(name)
        for i, v in enumerate(values):
            if v is None:
                raise _bad("bad_key", table, f"null in key column {name!r} at row {i}")
            if bar and "|" in v:
                raise _bad("bad_key", table, f"value {v!r} of column {name!r} contains '|'")
        cols.append(values)
    return cols


def no_duplicates(table: Table, keys: list[Any], what: str) -> None:
    seen: set[Any] = set()
    for key in keys:
        if key in seen:
            raise _bad("duplicate_key", table, f"{what} {key!r} occurs more than once")
        seen.add(key)


def unknown_rows(board: Leaderboard, table: Table, ids: list[str]) -> None:
    known = set(ids)
    for col in board.measured.values():
        for rid in col.row_tolerances:
            if rid not in known:
                raise _bad(
                    "unknown_row", table, f"column {col.name}: row_tolerances names no row {rid!r}"
                )


def registry_values(src: Source, table: Table, entries: list[str], tasks: list[str]) -> None:
    """bad_value, row by row: trials < 1, perfect_count < 0, perfect_count > pass_count,
    pass_count > trials, a null, non-finite or out-of-range score."""
    scores, trials = table.values(str(src.score)), table.values(str(src.trials))
    passes, perfect = table.values(str(src.pass_count)), table.values(str(src.perfect_count))
    scale = src.score_scale or 0
    for i, (e, t) in enumerate(zip(entries, tasks, strict=True)):
        n, p, c, s = trials[i], passes[i], perfect[i], scores[i]
        where = f"row {i} ({e}, {t})"
        if n is None or n < 1:
            raise _bad("bad_value", table, f"{where}: {src.trials} is not >= 1")
        if c is None or c < 0:
            raise _bad("bad_value", table, f"{where}: {src.perfect_count} is not >= 0")
        if p is None or c > p:
            raise _bad("bad_value", table, f"{where}: {src.perfect_count} exceeds {src.pass_count}")
        if p > n:
            raise _bad("bad_value", table, f"{where}: {src.pass_count} exceeds {src.trials}")
        if s is None:
            raise _bad("bad_value", table, f"{where}: {src.score} is null")
        if not math.isfinite(s):
            raise _bad("bad_value", table, f"{where}: {src.score} is not finite")
        if s < 0 or s > scale:
            raise _bad("bad_value", table, f"{where}: {src.score} is outside [0, {scale}]")


def trial_values(table: Table, keys: list[list[Any]]) -> None:
    """bad_value on the trial table (section 5), each rule over every row in turn."""
    run, task, trial_id, copy = keys
    status, reward = table.values("status"), table.values("reward")
    for i, s in enumerate(status):
        if s not in STATUSES:
            raise _bad(
                "bad_value", table, f"row {i}: status {s!r} is not scored, errored or unscored"
            )
    for i, (s, r) in enumerate(zip(status, reward, strict=True)):
        if (r is None) == (s == "scored"):
            detail = "a scored row has no reward" if s == "scored" else f"an {s} row has a reward"
            raise _bad("bad_value", table, f"row {i}: {detail}")
    for i, r in enumerate(reward):
        if r is not None and not math.isfinite(r):
            raise _bad("bad_value", table, f"row {i}: reward {r!r} is not finite")
    for i, c in enumerate(copy):
        if c < 0:
            raise _bad("bad_value", table, f"row {i}: copy {c} is negative")
    groups: dict[tuple[str, str, str], list[int]] = {}
    for key in zip(run, task, trial_id, copy, strict=True):
        groups.setdefault(key[:3], []).append(key[3])
    for key, numbers in groups.items():
        if max(numbers) != len(numbers) - 1:
            raise _bad(
                "bad_value", table, f"copies of {key!r} are not numbered 0 .. {len(numbers) - 1}"
            )
    for i, t in enumerate(table.values("started_at")):
        if t is not None and not CANONICAL_TIME.fullmatch(t):
            raise _bad(
                "bad_value", table, f"row {i}: started_at {t!r} is not YYYY-MM-DDTHH:MM:SS.ffffffZ"
            )
    if "verifier_broken" in table.names:
        broken = table.values("verifier_broken")
        if None in broken:
            raise _bad("bad_value", table, f"row {broken.index(None)}: verifier_broken is null")
    if "reward_regraded" in table.names:
        for i, g in enumerate(table.values("reward_regraded")):
            if g is not None and not math.isfinite(g):
                raise _bad("bad_value", table, f"row {i}: reward_regraded {g!r} is not finite")


def judge(rec: Prereg, board_table: Table | None, source: Table | None) -> None:
    """Every check of section 5 on the tables, in the contract's order; the first problem
    as an AuditError (the contestants' class). ``source`` None: the trial table is not
    judged here (only the leaderboard). Returns quietly where a column is of a type not
    judged here: what follows is the contestants'."""
    try:
        _judge(rec, board_table, source)
    except Unjudged:
        return


def _judge(rec: Prereg, lb: Table | None, src_table: Table | None) -> None:
    board, src = rec.leaderboard, rec.source
    lb = lb if board is not None else None
    if lb is not None and board is not None:
        missing_column(lb, leaderboard_names(board))
    if src_table is not None:
        missing_column(src_table, source_names(src))
    if lb is not None and board is not None:
        undeclared_column(board, lb)
        duplicate_column(lb)
    if src_table is not None:
        duplicate_column(src_table)
    if lb is not None and board is not None:
        csv_fields(lb)
        leaderboard_types(board, lb)
    if src_table is not None:
        source_types(src, src_table)
    ids: list[str] = []
    if lb is not None and board is not None:
        ids = ["|".join(p) for p in zip(*key_values(lb, board.row_key, bar=True), strict=True)]
    src_keys: list[Any] = []
    entries: list[str] = []
    tasks: list[str] = []
    trial_keys: list[list[Any]] = []
    if src_table is not None and src.kind == "registry":
        entries = [
            "|".join(p) for p in zip(*key_values(src_table, src.entry, bar=True), strict=True)
        ]
        tasks = key_values(src_table, (str(src.task),), bar=False)[0]
        src_keys = list(zip(entries, tasks, strict=True))
    elif src_table is not None:
        trial_keys = key_values(src_table, ("run", "task", "trial_id", "copy"), bar=False)
        src_keys = list(zip(*trial_keys, strict=True))
    if lb is not None:
        no_duplicates(lb, ids, "row id")
    if src_table is not None:
        what = "(entry, task)" if src.kind == "registry" else "(run, task, trial_id, copy)"
        no_duplicates(src_table, src_keys, what)
    if lb is not None and board is not None:
        unknown_rows(board, lb, ids)
    if src_table is not None and src.kind == "registry":
        registry_values(src, src_table, entries, tasks)
    elif src_table is not None:
        trial_values(src_table, trial_keys)
