"""The controls' own reading of trials v1 sections 3, 6.1 and 7.1 for a registry
source (``kind: registry``), in exact rationals.

Shares nothing with either contestant: the rows are plain dicts (read by
polars) under the column names the prereg's ``source`` declares, the arithmetic
is ``fractions.Fraction``. Per (entry, policy) it computes what a registry
control predicts: the tasks, the task-macro reward and the pass share (times
the prereg's scale). Every registry row has a mean, so every task counts.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import polars as pl

from audit.bundles import parquet_stored
from audit.trials.record import Policy, Source
from controls.trials_exact import Entry

Row = dict  # one registry row, keyed by the source's own column names


def columns(src: Source) -> list[str]:
    """The columns a registry control reads: entry columns, task, and the four counts."""
    names = [*src.entry, src.task, src.score, src.trials, src.pass_count, src.perfect_count]
    return [n for n in names if n is not None]  # a registry source declares every one


def read_rows(src: Source, table: str | Path | bytes) -> list[Row]:
    """The registry's rows; its counts as the integers the file stores, where polars reads
    one otherwise (an Arrow duration: audit/bundles/parquet_stored.py)."""
    if isinstance(table, bytes):
        return pl.read_parquet(table, columns=columns(src)).to_dicts()
    return parquet_stored.read(table, columns(src)).to_dicts()


def entry_id(src: Source, row: Row) -> str:
    """Section 1: the entry columns' values joined by ``|``."""
    return "|".join(str(row[c]) for c in src.entry)


def _scale(src: Source) -> int:
    assert src.score_scale is not None  # a registry source declares it
    return src.score_scale


def all_passed(src: Source, row: Row) -> bool:
    """Every trial of the cell has reward 1: pass = perfect = trials, score = the scale."""
    n = row[src.trials]
    score = Fraction(repr(row[src.score]))
    return row[src.pass_count] == row[src.perfect_count] == n and score == _scale(src)


def _mean(src: Source, row: Row, pol: Policy) -> Fraction:
    """Section 6.1: the cell's mean under ``exact_where_possible`` or ``rounded_score``."""
    n, p, c = row[src.trials], row[src.pass_count], row[src.perfect_count]
    score = Fraction(repr(row[src.score]))  # the decimal of its repr, as published values
    if pol.registry_means == "exact_where_possible" and p == c:
        assert src.score_decimals is not None  # a registry source declares it
        half = Fraction(1, 2) / 10**src.score_decimals
        if abs(score - _scale(src) * Fraction(c, n)) <= half:
            return Fraction(c, n)
    return score / _scale(src)


def entry(rows: list[Row], src: Source, name: str, pol: Policy, scale: int) -> Entry:
    """Section 7.1 and 7.5 for one entry under one policy, exactly."""
    mine = sorted((r for r in rows if entry_id(src, r) == name), key=lambda r: r[src.task])
    if not mine:
        return Entry(0, None, None)
    means = [_mean(src, r, pol) for r in mine]
    passes = [Fraction(r[src.perfect_count], r[src.trials]) for r in mine]
    n = len(mine)
    return Entry(n, scale * sum(means, Fraction(0)) / n, scale * sum(passes, Fraction(0)) / n)


def entries(rows: list[Row], src: Source) -> list[str]:
    return sorted({entry_id(src, r) for r in rows})
