"""The null's draws in shards (contract, "Sharded null draws").

    python -m impl_pandas null-draws --prereg P --table reproduce.csv --draws A:B --out PART.csv
    python -m impl_pandas null-merge --prereg P --table reproduce.csv --out DIR PART.csv [...]

Both start from a reproduce.csv and share the counting and summing with the
full run (nulls.py). Neither imports pandas or fastparquet: a shard starts in
the time it takes to load numpy.
"""

from __future__ import annotations

import csv
import io
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from . import nulls
from .errors import BAD_SHARDS, MISSING_FILE, UNREADABLE, InputError, report
from .prereg import leaderboard as prereg_mod
from .prereg import load_document
from .write import render, write_all

DRAWS = "null-draws"
MERGE = "null-merge"
PROG = "python -m impl_pandas"
USAGE = {
    DRAWS: (
        "usage: {prog} null-draws --prereg PREREG.yaml --table reproduce.csv"
        " --draws A:B --out PART.csv"
    ),
    MERGE: (
        "usage: {prog} null-merge --prereg PREREG.yaml --table reproduce.csv"
        " --out OUT_DIR PART.csv [PART.csv ...]"
    ),
}
# What the shard commands read from a prereg (its measured columns, seed, null_draws):
# the leaderboard's own parser here; the trials prereg's in trials/shards.py.
NullKeysOf = Callable[[Any, str], prereg_mod.NullKeys]
OPTIONS = {
    DRAWS: ("--prereg", "--table", "--draws", "--out"),
    MERGE: ("--prereg", "--table", "--out"),
}
_DECIMAL = re.compile(r"[0-9]+")
_RANGE = re.compile(r"([0-9]+):([0-9]+)")
_BITS = re.compile(r"[01]*")


class UsageError(Exception):
    """A command line the shard commands do not understand."""


@dataclass
class Table:
    """A checked reproduce.csv: per column (sorted by name) its N x N table; the row ids."""

    tables: dict[str, np.ndarray]
    row_ids: list[str]


def _parse_argv(command: str, argv: list[str]) -> tuple[dict[str, str], list[str]]:
    """Options (`--name value` or `--name=value`) and the positional arguments."""
    names = OPTIONS[command]
    opts: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if arg == "--":
            rest.extend(argv[i + 1 :])
            break
        if name in names:
            if not eq:
                if i + 1 >= len(argv):
                    raise UsageError(f"{name} needs a value")
                i += 1
                value = argv[i]
            if name in opts:
                raise UsageError(f"{name} given twice")
            opts[name] = value
        elif arg.startswith("-") and arg != "-":
            raise UsageError(f"unknown option {arg}")
        else:
            rest.append(arg)
        i += 1
    missing = [n for n in names if n not in opts]
    if missing:
        raise UsageError(f"{', '.join(missing)} required")
    if command == DRAWS and rest:
        raise UsageError(f"unexpected argument {rest[0]}")
    if command == MERGE and not rest:
        raise UsageError("at least one PART.csv required")
    return opts, rest


def _require_file(path: str) -> None:
    if not os.path.isfile(path):
        raise InputError(MISSING_FILE, path, "no such regular file")


def _read_csv(path: str, header: list[str]) -> list[list[str]]:
    """The data rows of a UTF-8 CSV file with exactly `header` (unreadable otherwise)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise InputError(UNREADABLE, path, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(UNREADABLE, path, f"not UTF-8: {exc}") from None
    # no field is longer than the file (a long row id, one character per row): above the
    # csv module's default limit of 131,072 characters
    csv.field_size_limit(max(csv.field_size_limit(), len(text)))
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise InputError(UNREADABLE, path, f"not CSV: {exc}") from None
    if not rows or rows[0] != header:
        raise InputError(UNREADABLE, path, f"the header is not {','.join(header)}")
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(
                UNREADABLE, path, f"record {line} has {len(row)} fields, not {len(header)}"
            )
    return rows[1:]


def _decimal(text: str, below: int) -> int | None:
    """A decimal integer (ASCII digits only) in 0 .. below-1, else None."""
    if not _DECIMAL.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(below)):
        return None
    value = int(digits)
    return value if value < below else None


def _draw_range(spec: str, draws: int, file: str) -> range:
    """`--draws A:B` with 0 <= A <= B <= draws (bad_shards otherwise)."""
    match = _RANGE.fullmatch(spec)
    a = b = None
    if match:
        a, b = _decimal(match.group(1), draws + 1), _decimal(match.group(2), draws + 1)
    if a is None or b is None or a > b:
        raise InputError(
            BAD_SHARDS,
            file,
            f"--draws {spec!r} is not A:B with 0 <= A <= B <= {draws} (null_draws)",
        )
    return range(a, b)


def _check_table(path: str, rows: list[list[str]], measured: tuple[str, ...]) -> Table:
    """The table's columns are the measured ones, each listing the same ids canonically, N bits."""

    def fail(detail: str) -> InputError:
        return InputError(BAD_SHARDS, path, detail)

    by_column: dict[str, list[list[str]]] = {}
    for row in rows:
        by_column.setdefault(row[0], []).append(row)
    if not rows:  # an empty leaderboard: every measured column has no rows
        by_column = {name: [] for name in measured}
    for name in sorted(by_column):
        if name not in measured:
            raise fail(f"column '{name}' is not a measured column of the prereg")
    for name in sorted(measured):
        if name not in by_column:
            raise fail(f"measured column '{name}' is not in the table")
    columns = sorted(by_column)
    ids = [row[1] for row in by_column[columns[0]]] if columns else []
    for a, b in pairwise(ids):
        if b < a:
            raise fail(
                f"column '{columns[0]}' lists row id '{b}' after '{a}', not in canonical order"
            )
    for name in columns[1:]:
        other = [row[1] for row in by_column[name]]
        if other != ids:
            raise fail(
                f"column '{name}' does not list the row ids of column '{columns[0]}' "
                "in the same order"
            )
    size = len(ids)
    for name in columns:
        for row in by_column[name]:
            bits = row[2]
            if len(bits) != size or not _BITS.fullmatch(bits):
                raise fail(
                    f"reproduced_by of column '{name}', row id '{row[1]}' is not "
                    f"{size} characters 0 or 1"
                )
    tables = {
        name: nulls.table_from_strings([row[2] for row in by_column[name]]) for name in columns
    }
    return Table(tables, ids)


def _check_parts(
    paths: list[str], parts: list[list[list[str]]], table: Table, draws: int
) -> dict[str, list[int]]:
    """Every (column, draw) of the table given exactly once; the counts by column."""
    size = len(table.row_ids)
    checked: list[list[tuple[str, int, int]]] = []
    for path, rows in zip(paths, parts):
        good: list[tuple[str, int, int]] = []
        for column, draw_text, count_text in rows:
            if column not in table.tables:
                raise InputError(BAD_SHARDS, path, f"column '{column}' is not in the table")
            draw = _decimal(draw_text, draws)
            if draw is None:
                raise InputError(
                    BAD_SHARDS,
                    path,
                    f"draw '{draw_text}' of column '{column}' is not in 0..{draws - 1}",
                )
            count = _decimal(count_text, size + 1)
            if count is None:
                raise InputError(
                    BAD_SHARDS,
                    path,
                    f"count '{count_text}' of column '{column}', draw {draw} is not "
                    f"a decimal integer in 0..{size}",
                )
            good.append((column, draw, count))
        checked.append(good)
    given: dict[tuple[str, int], str] = {}
    found: dict[str, list[int | None]] = {name: [None] * draws for name in table.tables}
    for path, rows in zip(paths, checked):
        for column, draw, count in rows:
            first = given.get((column, draw))
            if first is not None:
                raise InputError(
                    BAD_SHARDS,
                    path,
                    f"column '{column}', draw {draw} is given twice (first in {first})",
                )
            given[(column, draw)] = path
            found[column][draw] = count
    counts: dict[str, list[int]] = {}
    for name in sorted(found):
        got = found[name]
        if None in got:
            raise InputError(
                BAD_SHARDS,
                paths[0],
                f"column '{name}', draw {got.index(None)} is given by no part",
            )
        counts[name] = [c for c in got if c is not None]
    return counts


def _load(prereg: str, table: str, parts: list[str]) -> tuple[Any, list[list[str]]]:
    """missing_file for any file, then unreadable for the prereg and the table (YAML, rows)."""
    for path in (prereg, table, *parts):
        _require_file(path)
    doc = load_document(prereg)
    rows = _read_csv(table, nulls.REPRODUCE_HEADER)
    return doc, rows


def null_draws(opts: dict[str, str], keys_of: NullKeysOf = prereg_mod.parse_null_keys) -> None:
    """Write PART.csv: count(d) of every column of the table, A <= d < B."""
    prereg, table_path, out = opts["--prereg"], opts["--table"], opts["--out"]
    doc, rows = _load(prereg, table_path, [])
    keys = keys_of(doc, prereg)
    wanted = _draw_range(opts["--draws"], keys.null_draws, prereg)
    table = _check_table(table_path, rows, keys.measured)
    lines: list[list[str]] = []
    for name in sorted(table.tables):
        counts = nulls.count_draws(name, table.tables[name], keys.seed, wanted)
        lines.extend([name, str(d), str(c)] for d, c in zip(wanted, counts))
    folder, name = os.path.split(out)
    write_all(folder or ".", {name: render(nulls.PART_HEADER, lines)})


def null_merge(
    opts: dict[str, str], parts: list[str], keys_of: NullKeysOf = prereg_mod.parse_null_keys
) -> None:
    """Write OUT_DIR/nulls.csv and OUT_DIR/null_hist.csv from the table and the parts."""
    prereg, table_path, out = opts["--prereg"], opts["--table"], opts["--out"]
    doc, rows = _load(prereg, table_path, parts)
    part_rows = [_read_csv(path, nulls.PART_HEADER) for path in parts]
    keys = keys_of(doc, prereg)
    table = _check_table(table_path, rows, keys.measured)
    counts = _check_parts(parts, part_rows, table, keys.null_draws)
    null_rows, hist_rows = nulls.summarize(table.tables, counts, keys.null_draws)
    write_all(
        out,
        {
            "nulls.csv": render(nulls.NULLS_HEADER, null_rows),
            "null_hist.csv": render(nulls.HIST_HEADER, hist_rows),
        },
    )


def main(
    command: str,
    argv: list[str],
    keys_of: NullKeysOf = prereg_mod.parse_null_keys,
    prog: str = PROG,
) -> int:
    """Run one shard command; exit 0, or 2 on unusable input (one stderr line)."""
    usage = USAGE[command].format(prog=prog)
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(usage + "\n")
        return 0
    try:
        opts, rest = _parse_argv(command, argv)
    except UsageError as exc:
        sys.stderr.write(f"{usage}\n{command}: error: {exc}\n")
        return 2
    try:
        if command == DRAWS:
            null_draws(opts, keys_of)
        else:
            null_merge(opts, rest, keys_of)
    except InputError as err:
        return report(err)
    return 0
