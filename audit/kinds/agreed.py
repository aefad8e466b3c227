"""The files the agreement compares on an arm, by their keys (audit/core/agree.py holds
each kind's tables): the arm's kind decides, and what its prereg declares adds files."""

from __future__ import annotations

from audit.core.agree import FEASIBILITY_KEYS, KEYS, RANK_KEYS, TRIAL_KEYS
from audit.core.strict_yaml import read_strict
from audit.kinds.arm_kind import TRIALS, Kind


def keys_for(kind: Kind, prereg_path: str) -> dict[str, list[str]]:
    """The files compared on an arm, by their keys: the arm's kind decides, and a
    leaderboard prereg declaring feasibility (or ranks) adds its files."""
    doc = read_strict(prereg_path)
    if kind is TRIALS:  # a trials prereg declaring ranks adds them (trials contract, 17)
        return {**TRIAL_KEYS, **RANK_KEYS} if doc.get("ranks") else TRIAL_KEYS
    keys = {**KEYS, **FEASIBILITY_KEYS} if doc.get("feasibility") else dict(KEYS)
    if doc.get("ranks"):  # docs/contract.md, Ranks
        keys.update(RANK_KEYS)
    return keys
