"""Sharded null draws: `null-draws` (one range of draws) and `null-merge` (docs/contract.md).

Pure Python (csv, blake3, yaml): no Arrow, so a shard starts fast. The counting
and the summary are impl_pyarrow.nullcount's, the full run's own.

Checks run class by class (missing_file, unreadable, bad_prereg, bad_shards),
files in the order prereg, table, parts.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InputError, report
from .nullcount import (
    HIST_HEADER,
    NULLS_HEADER,
    PART_HEADER,
    REPRODUCE_HEADER,
    draw_counts,
    observed,
    summary,
    text_mask,
)
from .prereg import cells as prereg
from .write import render_csv, write_file, write_outputs

_DECIMAL = re.compile(r"[0-9]+")
_DRAWS = re.compile(r"([0-9]+):([0-9]+)")
_BITS = re.compile(r"[01]*")


@dataclass(frozen=True)
class PreregReader:
    """How the shard commands read a prereg: the file (unreadable), then the null's keys."""

    load: Callable[[str], Any]
    settings: Callable[[Any, str], prereg.NullSettings]


LEADERBOARD = PreregReader(prereg.load, prereg.null_settings)  # cells v1; trials: trials/shards.py


def _bad(path: str, detail: str) -> InputError:
    return InputError("bad_shards", path, detail)


def _require_files(paths: list[str]) -> None:
    """missing_file for the first path that is not an existing regular file."""
    for path in paths:
        if not os.path.isfile(path):
            raise InputError("missing_file", path, "no such regular file")


def _read_csv(path: str, header: list[str]) -> list[list[str]]:
    """The data rows of a UTF-8 CSV file with exactly this header; unreadable otherwise."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise InputError("unreadable", path, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
        csv.field_size_limit(sys.maxsize)  # a row id, or a row of the table, may be megabytes
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except UnicodeDecodeError as exc:
        raise InputError("unreadable", path, f"not UTF-8: {exc}") from None
    except csv.Error as exc:
        raise InputError("unreadable", path, f"not a CSV file: {exc}") from None
    if not rows or rows[0] != header:
        raise InputError("unreadable", path, f"the header is not {','.join(header)}")
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(
                "unreadable", path, f"record {line} has {len(row)} fields, not {len(header)}"
            )
    return rows[1:]


@dataclass
class Table:
    """A validated reproduce.csv: per column (by name), the masks of the rows in canonical order."""

    masks: dict[str, list[int]]
    n: int


def _table(rows: list[list[str]], measured: tuple[str, ...], path: str) -> Table:
    """bad_shards unless the table covers exactly the measured columns, same rows, N bits each."""
    if not rows:  # the table of a leaderboard with no rows (N = 0)
        return Table(masks={c: [] for c in sorted(measured)}, n=0)
    ids: dict[str, list[str]] = {}
    bits: dict[str, list[str]] = {}
    for column, row_id, reproduced_by in rows:
        ids.setdefault(column, []).append(row_id)
        bits.setdefault(column, []).append(reproduced_by)
    wanted = set(measured)
    for column in measured:
        if column not in ids:
            raise _bad(path, f"no rows for measured column {column!r}")
    for column in ids:
        if column not in wanted:
            raise _bad(path, f"column {column!r} is not a measured column of the prereg")
    names = sorted(ids)
    first = ids[names[0]] if names else []
    for i in range(1, len(first)):
        if first[i] < first[i - 1]:
            raise _bad(
                path,
                f"column {names[0]!r}: row id {first[i]!r} comes after {first[i - 1]!r}"
                " (not in code point order)",
            )
    for column in names[1:]:
        if ids[column] != first:
            raise _bad(
                path, f"column {column!r} does not list the row ids of {names[0]!r} in that order"
            )
    n = len(first)
    for column in names:
        for row_id, text in zip(ids[column], bits[column]):
            if len(text) != n or not _BITS.fullmatch(text):
                raise _bad(
                    path,
                    f"column {column!r}, row id {row_id!r}: reproduced_by is not"
                    f" {n} characters of 0/1",
                )
    return Table(masks={c: [text_mask(t) for t in bits[c]] for c in names}, n=n)


def _decimal(text: str, limit: int) -> int | None:
    """A decimal integer in 0..limit, else None (also for digit strings too long for int)."""
    if not _DECIMAL.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(limit)):
        return None
    value = int(digits)
    return value if value <= limit else None


def _draw_range(text: str, draws: int, path: str) -> tuple[int, int]:
    """A:B with 0 <= A <= B <= D."""
    match = _DRAWS.fullmatch(text)
    if match is None:
        raise _bad(path, f"--draws {text!r} is not of the form A:B (two decimal integers)")
    start, stop = _decimal(match.group(1), draws), _decimal(match.group(2), draws)
    if start is None or stop is None or start > stop:
        raise _bad(path, f"--draws {text!r} is not within 0..{draws} with A <= B")
    return start, stop


def draws_part(
    prereg_path: str, table_path: str, draws: str, reader: PreregReader = LEADERBOARD
) -> bytes:
    """The bytes of PART.csv: count(d) per column (by name) for the draws A <= d < B."""
    _require_files([prereg_path, table_path])
    doc = reader.load(prereg_path)
    rows = _read_csv(table_path, REPRODUCE_HEADER)
    settings = reader.settings(doc, prereg_path)
    start, stop = _draw_range(draws, settings.null_draws, prereg_path)
    table = _table(rows, settings.measured, table_path)
    out: list[list[str]] = []
    for column, masks in table.masks.items():
        counts = draw_counts(settings.seed, column, masks, start, stop)
        out.extend([column, str(d), str(c)] for d, c in zip(range(start, stop), counts))
    return render_csv(PART_HEADER, out)


def _part_counts(
    parts: list[str], part_rows: list[list[list[str]]], table: Table, draws: int
) -> dict[str, list[int]]:
    """Every column's D counts from the parts; bad_shards on the first problem."""
    parsed: list[list[tuple[str, int, int]]] = []
    for path, rows in zip(parts, part_rows):
        mine: list[tuple[str, int, int]] = []
        for line, (column, draw_text, count_text) in enumerate(rows, start=2):
            if column not in table.masks:
                raise _bad(path, f"record {line}: column {column!r} is not in the table")
            draw = _decimal(draw_text, draws - 1)
            if draw is None:
                raise _bad(path, f"record {line}: draw {draw_text!r} is not in 0..{draws - 1}")
            count = _decimal(count_text, table.n)
            if count is None:
                raise _bad(path, f"record {line}: count {count_text!r} is not in 0..{table.n}")
            mine.append((column, draw, count))
        parsed.append(mine)
    got: dict[str, list[int | None]] = {c: [None] * draws for c in table.masks}
    given_by: dict[tuple[str, int], str] = {}
    for path, mine in zip(parts, parsed):
        for column, draw, count in mine:
            if got[column][draw] is not None:
                raise _bad(
                    path,
                    f"column {column!r}, draw {draw} is given twice"
                    f" (first in {given_by[(column, draw)]})",
                )
            got[column][draw] = count
            given_by[(column, draw)] = path
    out: dict[str, list[int]] = {}
    for column, counts in got.items():
        for draw, count in enumerate(counts):
            if count is None:
                raise _bad(parts[0], f"column {column!r}, draw {draw} is given by no part")
        out[column] = [c for c in counts if c is not None]
    return out


def merge(
    prereg_path: str, table_path: str, parts: list[str], reader: PreregReader = LEADERBOARD
) -> dict[str, bytes]:
    """The bytes of nulls.csv and null_hist.csv from the table and the parts."""
    _require_files([prereg_path, table_path, *parts])
    doc = reader.load(prereg_path)
    rows = _read_csv(table_path, REPRODUCE_HEADER)
    part_rows = [_read_csv(p, PART_HEADER) for p in parts]
    settings = reader.settings(doc, prereg_path)
    table = _table(rows, settings.measured, table_path)
    counts = _part_counts(parts, part_rows, table, settings.null_draws)
    null_rows: list[list[str]] = []
    hist_rows: list[list[str]] = []
    for column, masks in table.masks.items():
        row, hist = summary(column, observed(masks), counts[column], settings.null_draws, masks)
        null_rows.append(row)
        hist_rows.extend(hist)
    return {
        "nulls.csv": render_csv(NULLS_HEADER, null_rows),
        "null_hist.csv": render_csv(HIST_HEADER, hist_rows),
    }


def _write_failed(target: str, exc: OSError) -> int:
    detail = " ".join(str(exc).split())
    sys.stderr.write(f"error: {target}: cannot write output: {detail}\n")
    return 1


def _draws_joined(argv: list[str]) -> list[str]:
    """`--draws X` as `--draws=X`, so a value such as -1:2 reaches the bad_shards check."""
    out = list(argv)
    for i in range(len(out) - 1):
        if out[i] == "--draws":
            out[i : i + 2] = [f"--draws={out[i + 1]}"]
            break
    return out


def draws_main(
    argv: list[str], reader: PreregReader = LEADERBOARD, prog: str = "python -m impl_pyarrow"
) -> int:
    """python -m impl_pyarrow null-draws --prereg P --table T --draws A:B --out PART.csv"""
    parser = argparse.ArgumentParser(
        prog=f"{prog} null-draws",
        description="Count a range of the permutation null's draws from reproduce.csv.",
    )
    parser.add_argument("--prereg", required=True, help="preregistration YAML")
    parser.add_argument("--table", required=True, help="reproduce.csv of a recompute")
    parser.add_argument("--draws", required=True, help="A:B, the draws A <= d < B")
    parser.add_argument("--out", required=True, help="part file to write (CSV)")
    args = parser.parse_args(_draws_joined(argv))
    try:
        data = draws_part(args.prereg, args.table, args.draws, reader)
        parent = os.path.dirname(args.out)
        if parent:
            os.makedirs(parent, exist_ok=True)
        write_file(args.out, data)
    except InputError as err:
        return report(err)
    except OSError as exc:
        return _write_failed(args.out, exc)
    return 0


def merge_main(
    argv: list[str], reader: PreregReader = LEADERBOARD, prog: str = "python -m impl_pyarrow"
) -> int:
    """python -m impl_pyarrow null-merge --prereg P --table T --out DIR PART.csv [...]"""
    parser = argparse.ArgumentParser(
        prog=f"{prog} null-merge",
        description="Merge part files of null draws into nulls.csv and null_hist.csv.",
    )
    parser.add_argument("--prereg", required=True, help="preregistration YAML")
    parser.add_argument("--table", required=True, help="reproduce.csv of a recompute")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("parts", nargs="+", metavar="PART.csv", help="part files, any order")
    args = parser.parse_args(argv)
    try:
        files = merge(args.prereg, args.table, args.parts, reader)
        write_outputs(args.out, files)
    except InputError as err:
        return report(err)
    except OSError as exc:
        return _write_failed(args.out, exc)
    return 0
