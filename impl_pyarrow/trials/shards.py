"""The trials null in shards: `trials null-draws` and `trials null-merge` (trials contract 9.1).

The part files, the table checks, the counting and the merge are the
leaderboard's shard commands (impl_pyarrow.shards); what differs is how the
prereg is read: as a trials v1 prereg (prereg.trials), its leaderboard's
measured columns being the ones the table covers (none without a leaderboard).
Pure Python: no Arrow is imported.
"""

from __future__ import annotations

from typing import Any

from ..prereg import trials as prereg
from ..prereg.cells import NullSettings
from ..shards import PreregReader, draws_main, merge_main

PROG = "python -m impl_pyarrow trials"


def null_settings(doc: Any, path: str) -> NullSettings:
    """seed, null_draws and the measured column names of a trials prereg (bad_prereg)."""
    prereg.check_amends(doc, path)
    pr = prereg.validate(doc, path)
    board = pr.leaderboard
    measured = tuple(board.measured) if board is not None else ()
    return NullSettings(measured=measured, seed=pr.seed, null_draws=pr.null_draws)


TRIALS = PreregReader(prereg.load, null_settings)


def main(command: str, argv: list[str]) -> int:
    """Run one of the two shard commands on a trials prereg."""
    if command == "null-draws":
        return draws_main(argv, TRIALS, PROG)
    return merge_main(argv, TRIALS, PROG)
