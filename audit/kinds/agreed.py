"""The files the agreement compares on an arm, by their keys (audit/core/agree.py holds
each kind's tables): the arm's kind decides, and what its prereg declares adds files."""

from __future__ import annotations

from audit.cells.record import Prereg as LeaderboardPrereg
from audit.core.agree import FEASIBILITY_KEYS, KEYS, RANK_KEYS, TRIAL_KEYS
from audit.kinds.arm_kind import TRIALS, Kind


def keys_for(kind: Kind, prereg_path: str) -> dict[str, list[str]]:
    """The files compared on an arm, by their keys: the arm's kind decides, and a
    leaderboard prereg declaring feasibility (or ranks) adds its files (the locked
    prereg's record, as the kind reads a locked prereg)."""
    rec = kind.locked_record(prereg_path)
    if kind is TRIALS:  # a trials prereg declaring ranks adds them (trials contract, 17)
        return {**TRIAL_KEYS, **RANK_KEYS} if rec.ranks else TRIAL_KEYS
    assert isinstance(rec, LeaderboardPrereg)
    keys = {**KEYS, **FEASIBILITY_KEYS} if rec.feasibility else dict(KEYS)
    if rec.ranks:  # docs/contract.md, Ranks
        keys.update(RANK_KEYS)
    return keys
