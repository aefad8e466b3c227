"""A trials arm's inputs judged before the lock (docs/refusals.md, "Where each class is
refused"): the leaderboard and the registry table as shipped, or, for a trials source,
the trial table the adapter assembles from the jobs folder, adapted here in memory
(read-only, nothing written) when the folder is within ADAPT_BOUND; then, with a
`compare` block, compare-runs' own refusals of that table (unknown_run, no_pairs,
settings_differ), from the command's own code. The table judged is handed back for the
controls' own choice of targets (controls/before_lock.py, through audit/preflight.py). A larger
folder's table is judged by the lock (audit/lock/trials.py) with the same checks
(check_assembled), on the table the adapter job wrote, then the controls' choice on it
(controls/before_lock.py), before the lock writes anything.

Before, each was found by a job after the lock (the contestants, compare-runs), leaving
a locked arm whose corrected input was then refused as arm_locked. The adapter job still
runs as before: what it writes is what every later job reads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.files import regular_files
from audit.trials import preflight_tables
from audit.trials.record import Prereg

# The jobs folder's bytes (its regular files, summed) up to which the adapter runs before
# the lock as well as in its job. On the shipped samples (benchmarks/preflight_trials.py):
# 0.3 MB in 0.04 to 0.08 s (BenchFlow), 5.4 MB in about 1 s (Terminal-Bench); 64 MiB
# keeps the second reading to seconds. A larger folder's trial table is judged by the lock,
# on the adapter job's table (check_assembled).
ADAPT_BOUND = 64 << 20


def check_before_lock(rec: Prereg, bundle: str) -> str | bytes | None:
    """Every check of a trials arm's tables before the lock; an AuditError (one line) for
    the first problem, in the contestants' (or compare-runs') class. ``rec``: the checked
    prereg's frozen record, the one the workflow parsed (workflow/rules/common.smk).
    Returns what the controls' job will read, once judged: the registry table's path, or
    the adapted trial table's parquet bytes as the adapter job writes them; None when it
    was not judged here (not there, not parquet, or a jobs folder past ADAPT_BOUND)."""
    judged = judge(rec, bundle, lambda: adapt(rec, bundle))
    if judged is None or isinstance(judged, str):
        return judged
    from audit.adapters.base import parquet_bytes

    return parquet_bytes(judged)


def check_assembled(rec: Prereg, bundle: str, assembled: str | None) -> str | None:
    """The same checks, the lock's (for a jobs folder past ADAPT_BOUND, which preflight did
    not adapt, or the command run alone): a trials source's table as the adapter job wrote
    it (``assembled``/trials.parquet), named as preflight names it (the jobs folder); a
    registry's tables as shipped. A table that does not read is left to the lock's own
    refusal. Returns the path of the table judged, which the controls' job will read (the
    registry table, or the adapter's trials.parquet); None when none was judged."""
    import polars as pl

    def table() -> Any | None:
        if assembled is None:
            return None
        try:
            return pl.read_parquet(Path(assembled, "trials.parquet"))
        except Exception:  # noqa: BLE001 - any unreadable file: the lock's refusal, not this one
            return None

    judged = judge(rec, bundle, table)
    if judged is None or isinstance(judged, str):
        return judged
    return str(Path(str(assembled), "trials.parquet"))


def judged_at_preflight(rec: Prereg, bundle: str) -> bool:
    """Whether preflight judges this arm's tables as the workflow is read: every shipped
    table does; a trials source's adapted table only when its jobs folder is within
    ADAPT_BOUND (else the lock judges it, check_assembled)."""
    if rec.source.kind == "registry":
        return True
    root = Path(bundle, str(rec.source.jobs))
    return root.is_dir() and jobs_bytes(root) <= ADAPT_BOUND


def judge(rec: Prereg, bundle: str, trial_table: Callable[[], Any | None]) -> Any | None:
    """The leaderboard and the source table (a registry's, or a trials source's trial
    table as ``trial_table()`` reads it once the leaderboard is judged: None, not judged),
    then compare-runs' refusals of it. Returns the registry table's path or the trial
    table judged; None when neither was judged."""
    board = rec.leaderboard
    lb = None
    if board is not None:
        lb = _leaderboard(board.table, board.types, bundle)
        if lb is None:
            return None  # not there or not parquet: the lock's refusal
    if rec.source.kind == "registry":
        src = _parquet(rec.source.table, bundle)
        if src is None:
            return None
        preflight_tables.judge(rec, lb, src)
        return str(Path(bundle, rec.source.table))
    adapted = trial_table()
    shown = f"{bundle}/{rec.source.jobs}"
    src = None if adapted is None else preflight_tables.frame_table(adapted, shown)
    preflight_tables.judge(rec, lb, src)
    if adapted is None:
        return None
    if rec.compare is not None:
        compare_refusals(rec, adapted, shown)
    return adapted


def _parquet(name: str, bundle: str) -> preflight_tables.Table | None:
    path = Path(bundle, name)
    if not path.is_file():
        return None
    try:
        return preflight_tables.parquet_table(str(path), f"{bundle}/{name}")
    except AuditError:
        return None  # a footer that does not read: the lock's unreadable


def _leaderboard(name: str, types: Any, bundle: str) -> preflight_tables.Table | None:
    if types is None:
        return _parquet(name, bundle)
    path = Path(bundle, name)
    if not path.is_file():
        return None
    # the lock's own CSV reader: its unreadable and too_large are the lock's lines
    return preflight_tables.csv_table(str(path), f"{bundle}/{name}", dict(types))


def jobs_bytes(root: Path) -> int:
    """The jobs folder's regular files' sizes, summed (what the lock hashes)."""
    return sum((root / rel).stat().st_size for rel in regular_files(root))


def adapt(rec: Prereg, bundle: str) -> Any | None:
    """The trial table the adapter job will write, read here in memory (the adapter's own
    refusals raised as the job raises them); None for a folder that is not there (the
    workflow's missing_file) or past ADAPT_BOUND."""
    from audit.adapters.base import Options
    from audit.adapters.formats import adapt as adapt_jobs

    if not judged_at_preflight(rec, bundle):
        return None
    src = rec.source
    options = Options(duplicates=src.duplicates, min_tries=src.min_tries)
    table, _ = adapt_jobs(f"{bundle}/{src.jobs}", str(src.format), options)
    return table


def compare_refusals(rec: Prereg, table: Any, shown: str) -> None:
    """compare-runs' refusals of its input, as the job would raise them from the table:
    a run the trial table does not hold (unknown_run, naming the jobs folder rather than
    the table not yet written), no task valued in both runs (no_pairs), a setting not
    under study that differs (settings_differ)."""
    from audit.trials.compare_runs import paired_runs, run_rows

    c = rec.compare
    assert c is not None
    arm_a = (c.a, run_rows(table, c.a, shown))
    arm_b = (c.b, run_rows(table, c.b, shown))
    reward, broken = c.reward or "original", c.broken or "as_zero"  # the command's defaults
    paired_runs(arm_a, arm_b, c.denominator, reward, broken, list(c.under_study))
