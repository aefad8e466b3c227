"""The trials null in shards (docs/trials-contract.md 9.1).

    python -m impl_pandas trials null-draws --prereg P --table reproduce.csv --draws A:B --out PART
    python -m impl_pandas trials null-merge --prereg P --table reproduce.csv --out DIR PART [...]

The table, the parts, the draws and the merge are the leaderboard's shard
commands (..shards); only the prereg differs: a trials v1 prereg, checked as
the recompute checks it, whose leaderboard names the measured columns.
"""

from __future__ import annotations

from typing import Any

from .. import shards as leaderboard_shards
from ..prereg.leaderboard import NullKeys
from ..prereg.trials import parse

PROG = "python -m impl_pandas trials"


def null_keys(doc: Any, path: str) -> NullKeys:
    """The measured columns (none without a leaderboard), seed, null_draws (bad_prereg)."""
    pre = parse(doc, path)
    measured = tuple(sorted(pre.leaderboard.measured)) if pre.leaderboard is not None else ()
    return NullKeys(measured=measured, seed=pre.seed, null_draws=pre.null_draws)


def main(command: str, argv: list[str]) -> int:
    """Run `null-draws` or `null-merge` on a trials prereg; exit 0, or 2 (one stderr line)."""
    return leaderboard_shards.main(command, argv, keys_of=null_keys, prog=PROG)
