"""The three tables (leaderboard, registry, trial table): schema, key and value checks."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pyarrow as pa

from ..errors import fail
from ..prereg.trials import Board, Source, TrialsPrereg
from ..values import base_type, format_value, python_list

TRIAL_COLUMNS: tuple[str, ...] = (
    "run",
    "task",
    "trial_id",
    "copy",
    "status",
    "reward",
    "started_at",
)
STATUSES: tuple[str, ...] = ("scored", "errored", "unscored")
# Read when present (section 6.3); a table without them has no broken verifier, no regrade.
OPTIONAL_TRIAL_COLUMNS: tuple[str, ...] = ("verifier_broken", "reward_regraded")
CANONICAL_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


def leaderboard_names(board: Board) -> list[str]:
    """Leaderboard columns the prereg names, in prereg order, without repeats."""
    names = [*board.row_key, *board.structural, *board.no_antecedent, *board.table_columns()]
    return list(dict.fromkeys(names))


def source_names(src: Source) -> list[str]:
    """Source columns the contestant reads, in prereg (or contract) order."""
    if src.kind == "trials":
        return list(TRIAL_COLUMNS)
    names = [*src.entry, src.task, src.score, src.trials, src.pass_count, src.perfect_count]
    return list(dict.fromkeys(names))


def undeclared_column(board: Board, present: list[str], path: str) -> None:
    declared = {*board.structural, *board.no_antecedent, *board.table_columns()}
    for name in present:
        if name in board.measured and name not in declared:
            raise fail("undeclared_column", path, f"column {name!r} is declared published: false")
        if name not in declared:
            raise fail("undeclared_column", path, f"column {name!r} is not classified")


def _expect(kinds: dict[str, str], name: str, want: tuple[str, ...], path: str) -> None:
    """bad_type unless the column's kind (the contract's, docs/contract.md Types) is wanted."""
    if kinds[name] not in want:
        raise fail(
            "bad_type", path, f"column {name!r} is {kinds[name]}, expected {' or '.join(want)}"
        )


def leaderboard_types(
    board: Board, kinds: dict[str, str], path: str, text_numbers: frozenset[str] = frozenset()
) -> None:
    """bad_type: row_key columns not string, measured columns not integer or floating
    (or, in a CSV, declared decimal: text_numbers). ``kinds``: each column's kind, a
    parquet file's from its own footer (schema.kinds), not Arrow's reading of it."""
    for name in board.row_key:
        _expect(kinds, name, ("string",), path)
    for name in board.table_columns():
        if name not in text_numbers:
            _expect(kinds, name, ("integer", "floating"), path)


def source_types(src: Source, kinds: dict[str, str], path: str) -> None:
    """bad_type for the registry's or the trial table's columns, by the kinds of the
    file's own footer (schema.kinds): a half float is of kind other, an Arrow duration
    (a plain INT64 in the file) an integer."""
    if src.kind == "registry":
        for name in (*src.entry, src.task):
            _expect(kinds, name, ("string",), path)
        _expect(kinds, src.score, ("integer", "floating"), path)
        for name in (src.trials, src.pass_count, src.perfect_count):
            _expect(kinds, name, ("integer",), path)
        return
    for name in ("run", "task", "trial_id", "status", "started_at"):
        _expect(kinds, name, ("string",), path)
    _expect(kinds, "copy", ("integer",), path)
    _expect(kinds, "reward", ("floating",), path)
    if "verifier_broken" in kinds:
        _expect(kinds, "verifier_broken", ("boolean",), path)
    if "reward_regraded" in kinds:
        _expect(kinds, "reward_regraded", ("floating",), path)


def key_values(table: pa.Table, names: tuple[str, ...], path: str, bar: bool) -> list[list[Any]]:
    """Python values of key columns; bad_key on a null, or on `|` where ids are joined."""
    cols: list[list[Any]] = []
    for name in names:
        values = python_list(table.column(name))
        for i, v in enumerate(values):
            if v is None:
                raise fail("bad_key", path, f"null in key column {name!r} at row {i}")
            if bar and "|" in v:
                raise fail("bad_key", path, f"value {v!r} of column {name!r} contains '|'")
        cols.append(values)
    return cols


def joined(cols: list[list[Any]]) -> list[str]:
    """Ids: the values of several string columns joined by `|`."""
    return ["|".join(parts) for parts in zip(*cols)]


def no_duplicates(keys: list[Any], path: str, what: str) -> None:
    """duplicate_key for the first key that occurs twice."""
    seen: set[Any] = set()
    for key in keys:
        if key in seen:
            raise fail("duplicate_key", path, f"{what} {key!r} occurs more than once")
        seen.add(key)


@dataclass
class LeaderboardData:
    """The published table, rows in canonical order (row id, code point order)."""

    names: list[str]
    types: dict[str, pa.DataType]
    row_ids: list[str]
    values: dict[str, list[Any]]
    shown: dict[str, list[str]]
    text_numbers: frozenset[str] = frozenset()  # CSV columns typed decimal: numbers as text


def leaderboard_data(
    table: pa.Table, ids: list[str], text_numbers: frozenset[str] = frozenset()
) -> LeaderboardData:
    """Rows sorted by row id (ids already checked unique)."""
    names = table.column_names
    types = {f.name: f.type for f in table.schema}
    order = sorted(range(len(ids)), key=ids.__getitem__)
    raw = {n: python_list(table.column(n)) for n in names}
    values = {n: [raw[n][i] for i in order] for n in names}
    shown = {n: [format_value(v, types[n]) for v in values[n]] for n in names}
    return LeaderboardData(
        names=names,
        types=types,
        row_ids=[ids[i] for i in order],
        values=values,
        shown=shown,
        text_numbers=text_numbers,
    )


def with_unpublished(lb: LeaderboardData, board: Board) -> LeaderboardData:
    """The table plus each ``published: false`` column, every value null (section 16.5)."""
    extra = [n for n in board.measured if n not in board.table_columns()]
    if not extra:
        return lb
    n = len(lb.row_ids)
    return LeaderboardData(
        names=[*lb.names, *extra],
        types={**lb.types, **{c: pa.null() for c in extra}},
        row_ids=lb.row_ids,
        values={**lb.values, **{c: [None] * n for c in extra}},
        shown={**lb.shown, **{c: [""] * n for c in extra}},
        text_numbers=lb.text_numbers,
    )


def unknown_rows(pr: TrialsPrereg, lb: LeaderboardData, path: str) -> None:
    """unknown_row: a row_tolerances key that is no leaderboard row id."""
    assert pr.leaderboard is not None
    ids = set(lb.row_ids)
    for m in pr.leaderboard.measured.values():
        for rid in m.row_tolerances:
            if rid not in ids:
                raise fail(
                    "unknown_row", path, f"column {m.name}: row_tolerances names no row {rid!r}"
                )


@dataclass(frozen=True)
class RegistryCell:
    """One registry row: (entry, task) with its counts and score."""

    entry: str
    task: str
    score: float
    score_exact: Fraction  # the score read as the decimal of its repr
    trials: int
    passes: int
    perfect: int


def registry_cells(
    src: Source, table: pa.Table, entries: list[str], tasks: list[str], path: str
) -> list[RegistryCell]:
    """bad_value checks, then the cells."""
    score_type = base_type(table.schema.field(src.score).type)
    scores = python_list(table.column(src.score))
    trials = python_list(table.column(src.trials))
    passes = python_list(table.column(src.pass_count))
    perfect = python_list(table.column(src.perfect_count))
    cells: list[RegistryCell] = []
    for i, (e, t) in enumerate(zip(entries, tasks)):
        n, p, c, s = trials[i], passes[i], perfect[i], scores[i]
        where = f"row {i} ({e}, {t})"
        if n is None or n < 1:
            raise fail("bad_value", path, f"{where}: {src.trials} is not >= 1")
        if c is None or c < 0:
            raise fail("bad_value", path, f"{where}: {src.perfect_count} is not >= 0")
        if p is None or c > p:
            raise fail("bad_value", path, f"{where}: {src.perfect_count} exceeds {src.pass_count}")
        if p > n:
            raise fail("bad_value", path, f"{where}: {src.pass_count} exceeds {src.trials}")
        if s is None:
            raise fail("bad_value", path, f"{where}: {src.score} is null")
        if pa.types.is_integer(score_type):
            exact = Fraction(int(s))
            s = float(s)
        else:
            s = float(s)
            if not math.isfinite(s):
                raise fail("bad_value", path, f"{where}: {src.score} is not finite")
            exact = Fraction(repr(s))
        if s < 0 or s > src.score_scale:
            raise fail("bad_value", path, f"{where}: {src.score} is outside [0, {src.score_scale}]")
        cells.append(RegistryCell(e, t, s, exact, int(n), int(p), int(c)))
    return cells


@dataclass(frozen=True)
class TrialRow:
    """One row of the trial table (the columns the contestants read)."""

    run: str
    task: str
    trial_id: str
    copy: int
    status: str
    reward: float | None
    started_at: str | None
    verifier_broken: bool = False
    reward_regraded: float | None = None


def trial_rows(table: pa.Table, keys: list[list[Any]], path: str) -> list[TrialRow]:
    """bad_value checks on the trial table; the rows (keys already checked)."""
    run, task, trial_id, copy = keys
    groups: dict[tuple[str, str, str], list[int]] = {}
    for key in zip(run, task, trial_id, copy):
        groups.setdefault(key[:3], []).append(key[3])
    status = python_list(table.column("status"))
    reward = python_list(table.column("reward"))
    started = python_list(table.column("started_at"))
    for i, s in enumerate(status):
        if s not in STATUSES:
            raise fail(
                "bad_value", path, f"row {i}: status {s!r} is not scored, errored or unscored"
            )
    for i, (s, r) in enumerate(zip(status, reward)):
        if (r is None) == (s == "scored"):
            detail = "a scored row has no reward" if s == "scored" else f"an {s} row has a reward"
            raise fail("bad_value", path, f"row {i}: {detail}")
    for i, r in enumerate(reward):
        if r is not None and not math.isfinite(r):
            raise fail("bad_value", path, f"row {i}: reward {r!r} is not finite")
    for i, c in enumerate(copy):
        if c < 0:
            raise fail("bad_value", path, f"row {i}: copy {c} is negative")
    for key, numbers in groups.items():
        if max(numbers) != len(numbers) - 1:
            raise fail(
                "bad_value", path, f"copies of {key!r} are not numbered 0 .. {len(numbers) - 1}"
            )
    for i, t in enumerate(started):
        if t is not None and not CANONICAL_TIME.fullmatch(t):
            raise fail(
                "bad_value", path, f"row {i}: started_at {t!r} is not YYYY-MM-DDTHH:MM:SS.ffffffZ"
            )
    broken, regraded = _verifier_columns(table, path)
    return [
        TrialRow(
            run[i],
            task[i],
            trial_id[i],
            int(copy[i]),
            status[i],
            reward[i],
            started[i],
            broken[i],
            regraded[i],
        )
        for i in range(len(run))
    ]


def _verifier_columns(table: pa.Table, path: str) -> tuple[list[bool], list[float | None]]:
    """The optional columns of section 6.3 as Python lists (defaults when absent)."""
    n = table.num_rows
    names = table.column_names
    broken: list[Any] = (
        python_list(table.column("verifier_broken")) if "verifier_broken" in names else [False] * n
    )
    regraded: list[Any] = (
        python_list(table.column("reward_regraded")) if "reward_regraded" in names else [None] * n
    )
    if None in broken:
        raise fail("bad_value", path, f"row {broken.index(None)}: verifier_broken is null")
    for i, g in enumerate(regraded):
        if g is not None and not math.isfinite(g):
            raise fail("bad_value", path, f"row {i}: reward_regraded {g!r} is not finite")
    return broken, regraded
