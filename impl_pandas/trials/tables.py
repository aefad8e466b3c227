"""Table checks of contract trials v1 section 5, in its order of classes, and the rows they pass."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from ..errors import BAD_KEY, BAD_TYPE, BAD_VALUE, DUPLICATE_KEY, UNKNOWN_ROW, InputError
from ..prereg.trials import REGISTRY, Leaderboard, Source
from ..read import Table
from ..values import BOOLEAN, FLOATING, INTEGER, NUMERIC_KINDS, STRING, is_null

TRIAL_COLUMNS = ("run", "task", "trial_id", "copy", "status", "reward", "started_at")
STATUSES = ("scored", "errored", "unscored")
# Optional columns (section 6.3): absent means no broken verifier and no regrade.
VERIFIER_COLUMNS = ("verifier_broken", "reward_regraded")
_CANONICAL_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


@dataclass(frozen=True)
class RegistryRow:
    """One registry cell (entry, task)."""

    entry: str
    task: str
    score: float
    score_exact: Fraction
    trials: int
    passes: int
    perfect: int


def _values(table: Table, name: str) -> list[Any]:
    assert table.frame is not None
    return table.frame[name].to_numpy(dtype=object).tolist()


def leaderboard_names(board: Leaderboard) -> list[str]:
    """Leaderboard columns the prereg names, in the order they are checked."""
    measured = [n for n in board.measured if n not in board.unpublished]
    return [*board.row_key, *board.structural, *board.no_antecedent, *measured]


def source_names(source: Source) -> list[str]:
    """Source columns the prereg (or the contract, for trial tables) names."""
    if source.kind == REGISTRY:
        return [
            *source.entry,
            source.task,
            source.score,
            source.trials,
            source.pass_count,
            source.perfect_count,
        ]
    return list(TRIAL_COLUMNS)


def _want_kind(table: Table, name: str, kinds: tuple[str, ...], what: str) -> None:
    if table.kinds[name] not in kinds:
        raise InputError(
            BAD_TYPE,
            table.display,
            f"{what} column '{name}' is {table.kinds[name]}, not {' or '.join(kinds)}",
        )


def tables_measured(board: Leaderboard) -> list[str]:
    """The measured columns that are in the table (not the ``published: false`` ones)."""
    return [n for n in board.measured if n not in board.unpublished]


def leaderboard_types(table: Table, board: Leaderboard) -> None:
    """bad_type: row_key columns not string, measured columns not integer or floating."""
    for name in board.row_key:
        _want_kind(table, name, (STRING,), "row_key")
    for name in tables_measured(board):  # a CSV column declared decimal is a number too
        _want_kind(table, name, (*NUMERIC_KINDS, "decimal"), "measured")


def source_types(table: Table, source: Source) -> None:
    """bad_type for the source table's named columns."""
    if source.kind == REGISTRY:
        for name in source.entry:
            _want_kind(table, name, (STRING,), "entry")
        _want_kind(table, source.task, (STRING,), "task")
        _want_kind(table, source.score, NUMERIC_KINDS, "score")
        for name in (source.trials, source.pass_count, source.perfect_count):
            _want_kind(table, name, (INTEGER,), "count")
        return
    for name in ("run", "task", "trial_id", "status", "started_at"):
        _want_kind(table, name, (STRING,), "trial table")
    _want_kind(table, "copy", (INTEGER,), "trial table")
    _want_kind(table, "reward", (FLOATING,), "trial table")
    for name, kind in (("verifier_broken", BOOLEAN), ("reward_regraded", FLOATING)):
        if name in table.kinds:
            _want_kind(table, name, (kind,), "trial table")


def _key_values(table: Table, names: list[str], piped: list[str]) -> list[list[Any]]:
    """bad_key for a null in any of `names` or a '|' in any of `piped`; the columns' values."""
    columns = [_values(table, name) for name in names]
    for name, values in zip(names, columns):
        for i, value in enumerate(values):
            if is_null(value):
                raise InputError(BAD_KEY, table.display, f"null in key column '{name}' (row {i})")
            if name in piped and "|" in str(value):
                raise InputError(
                    BAD_KEY, table.display, f"key column '{name}' holds '|' (row {i}: {value!r})"
                )
    return columns


def leaderboard_ids(table: Table, board: Leaderboard) -> list[str]:
    """bad_key checks; the row ids ('|'-joined row_key values), in table order."""
    columns = _key_values(table, list(board.row_key), list(board.row_key))
    return ["|".join(parts) for parts in zip(*columns)] if columns else []


def source_keys(table: Table, source: Source) -> None:
    """bad_key for the source table."""
    if source.kind == REGISTRY:
        _key_values(table, [*source.entry, source.task], list(source.entry))
    else:
        _key_values(table, ["run", "task", "trial_id", "copy"], [])


def _first_duplicate(keys: list[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    seen: set[tuple[Any, ...]] = set()
    for key in keys:
        if key in seen:
            return key
        seen.add(key)
    return None


def duplicate_ids(display: str, ids: list[str], what: str) -> None:
    """duplicate_key for the first repeated row id."""
    dup = _first_duplicate([(i,) for i in ids])
    if dup is not None:
        raise InputError(DUPLICATE_KEY, display, f"{what} '{dup[0]}' occurs more than once")


def source_duplicates(table: Table, source: Source) -> None:
    """duplicate_key for the source table's key."""
    if source.kind == REGISTRY:
        entries = _entries(table, source)
        keys = list(zip(entries, _values(table, source.task)))
        what = "(entry, task)"
    else:
        names = ["run", "task", "trial_id", "copy"]
        keys = list(zip(*[_values(table, n) for n in names]))
        keys = [(r, t, i, int(c)) for r, t, i, c in keys]
        what = "(run, task, trial_id, copy)"
    dup = _first_duplicate(keys)
    if dup is not None:
        shown = ", ".join(str(v) for v in dup)
        raise InputError(DUPLICATE_KEY, table.display, f"{what} ({shown}) occurs more than once")


def unknown_rows(display: str, board: Leaderboard, ids: list[str]) -> None:
    """unknown_row for a row_tolerances key that is no leaderboard row id."""
    known = set(ids)
    for col in board.measured.values():
        for row_id in col.row_tolerances:
            if row_id not in known:
                raise InputError(
                    UNKNOWN_ROW,
                    display,
                    f"row_tolerances of '{col.name}' names '{row_id}', which is no row id",
                )


def _entries(table: Table, source: Source) -> list[str]:
    return ["|".join(parts) for parts in zip(*[_values(table, n) for n in source.entry])]


def _count(display: str, name: str, i: int, value: Any) -> int:
    if is_null(value):
        raise InputError(BAD_VALUE, display, f"null in '{name}' (row {i})")
    return int(value)


def registry_rows(table: Table, source: Source) -> list[RegistryRow]:
    """bad_value checks on the registry; its rows."""
    d = table.display
    entries = _entries(table, source)
    tasks = _values(table, source.task)
    scores = _values(table, source.score)
    kind = table.kinds[source.score]
    trials = _values(table, source.trials)
    passes = _values(table, source.pass_count)
    perfect = _values(table, source.perfect_count)
    rows: list[RegistryRow] = []
    for i, entry in enumerate(entries):
        n = _count(d, source.trials, i, trials[i])
        p = _count(d, source.pass_count, i, passes[i])
        c = _count(d, source.perfect_count, i, perfect[i])
        if n < 1:
            raise InputError(BAD_VALUE, d, f"'{source.trials}' is {n} < 1 (row {i})")
        if c < 0:
            raise InputError(BAD_VALUE, d, f"'{source.perfect_count}' is {c} < 0 (row {i})")
        if c > p:
            raise InputError(BAD_VALUE, d, f"perfect count {c} > pass count {p} (row {i})")
        if p > n:
            raise InputError(BAD_VALUE, d, f"pass count {p} > trials {n} (row {i})")
        raw = scores[i]
        if is_null(raw):
            raise InputError(BAD_VALUE, d, f"null score (row {i})")
        score = float(raw)
        if not math.isfinite(score):
            raise InputError(BAD_VALUE, d, f"score {score!r} is not finite (row {i})")
        exact = Fraction(int(raw)) if kind == INTEGER else Fraction(repr(score))
        if exact < 0 or exact > source.score_scale:
            raise InputError(
                BAD_VALUE, d, f"score {exact} outside [0, {source.score_scale}] (row {i})"
            )
        rows.append(RegistryRow(entry, tasks[i], score, exact, n, p, c))
    return rows


def trial_rows(table: Table) -> pd.DataFrame:
    """bad_value checks on the trial table, row by row in table order; the trials as a
    frame: run, task, trial_id, copy, status, reward and regraded (NaN: null),
    started_at (None: null), broken."""
    d = table.display
    cols = {name: _values(table, name) for name in TRIAL_COLUMNS}
    rewards: list[float] = []
    for i, (status, raw, copy, started) in enumerate(
        zip(cols["status"], cols["reward"], cols["copy"], cols["started_at"], strict=True)
    ):
        if is_null(status) or status not in STATUSES:
            raise InputError(BAD_VALUE, d, f"status {status!r} is not one of {STATUSES} (row {i})")
        reward = None if is_null(raw) else float(raw)
        if status == "scored" and reward is None:
            raise InputError(BAD_VALUE, d, f"a scored trial has a null reward (row {i})")
        if status != "scored" and reward is not None:
            raise InputError(BAD_VALUE, d, f"an {status} trial has a reward (row {i})")
        if reward is not None and not math.isfinite(reward):
            raise InputError(BAD_VALUE, d, f"reward {reward!r} is not finite (row {i})")
        if int(copy) < 0:
            raise InputError(BAD_VALUE, d, f"copy {int(copy)} < 0 (row {i})")
        if not is_null(started) and not _CANONICAL_TIME.fullmatch(started):
            raise InputError(BAD_VALUE, d, f"started_at {started!r} is not canonical (row {i})")
        rewards.append(np.nan if reward is None else reward)
    trials = pd.DataFrame(
        {
            "run": pd.Series(cols["run"], dtype=object),
            "task": pd.Series(cols["task"], dtype=object),
            "trial_id": pd.Series(cols["trial_id"], dtype=object),
            "copy": pd.Series([int(c) for c in cols["copy"]], dtype=np.int64),
            "status": pd.Series(cols["status"], dtype=object),
            "reward": pd.Series(rewards, dtype=np.float64),
            "started_at": pd.Series(
                [None if is_null(v) else v for v in cols["started_at"]], dtype=object
            ),
        }
    )
    trials["broken"], trials["regraded"] = _verifier_fields(table, len(trials))
    # the copies of one (run, task, trial_id) are numbered 0 .. c-1
    copies = trials.groupby(["run", "task", "trial_id"], sort=True)["copy"]
    size = copies.size()
    numbered = (copies.min() == 0) & (copies.max() == size - 1) & (copies.nunique() == size)
    if not numbered.all():
        key = numbered.index[~numbered.to_numpy()][0]
        raise InputError(BAD_VALUE, d, f"copies of ({', '.join(key)}) are not numbered 0..c-1")
    return trials


def _verifier_fields(table: Table, n: int) -> tuple[np.ndarray, np.ndarray]:
    """bad_value checks on the optional verifier columns; (broken, regraded) arrays."""
    assert table.frame is not None
    frame = table.frame
    broken = frame["verifier_broken"] if "verifier_broken" in frame.columns else None
    regraded = frame["reward_regraded"] if "reward_regraded" in frame.columns else None
    flags = pd.Series(False, index=range(n)) if broken is None else broken
    nulls = flags.map(is_null).to_numpy(dtype=bool)
    if nulls.any():
        i = int(np.flatnonzero(nulls)[0])
        raise InputError(BAD_VALUE, table.display, f"verifier_broken is null (row {i})")
    grades = (
        pd.Series(np.nan, index=range(n))
        if regraded is None
        else regraded.map(lambda v: np.nan if is_null(v) else float(v)).astype("float64")
    )
    bad = np.isinf(grades.to_numpy())
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(BAD_VALUE, table.display, f"reward_regraded is not finite (row {i})")
    return flags.to_numpy(dtype=bool), grades.to_numpy(dtype=np.float64)
