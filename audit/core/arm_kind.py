"""The one place that decides an arm's kind: its locked prereg says it.

A prereg without ``kind`` is a leaderboard prereg (cells v1, docs/contract.md);
``kind: trials`` is a trials prereg (trials v1, docs/trials-contract.md). The
config holds no kind: the method decides what is audited, not a run setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audit.cells.prereg import check_logic, check_schema, load_yaml, refuse_undecided
from audit.errors import AuditError
from audit.trials import prereg as trials_prereg

LEADERBOARD = "leaderboard"
TRIALS = "trials"


def kind_of(doc: dict[str, Any], path: str) -> str:
    """leaderboard or trials, from a prereg read strictly; bad_prereg for any other kind."""
    kind = doc.get("kind")
    if kind is None:
        return LEADERBOARD
    if kind == TRIALS:
        return TRIALS
    raise AuditError(
        "bad_prereg",
        path,
        f"kind {kind!r} is not a kind: leave it out for a leaderboard prereg (cells v1),"
        " or write kind: trials (trials v1)",
    )


def kind_of_file(path: str | Path) -> str:
    """The kind of the prereg in this file (read strictly), or its AuditError."""
    return kind_of(load_yaml(path), str(path))


def load_checked(path: str | Path) -> tuple[str, dict[str, Any]]:
    """The prereg read once, its kind, and the checks of that kind's lock, in order."""
    where = str(path)
    doc = load_yaml(path)
    kind = kind_of(doc, where)
    refuse_undecided(doc, where, missing_alone=False)  # a draft names what it leaves open
    if kind == TRIALS:
        trials_prereg.check(doc, where)
    else:
        check_schema(doc, "prereg", where)
        check_logic(doc, where)
    return kind, doc
