"""The one prereg parser of impl_pandas, for both of its commands.

A prereg is read strictly (yaml_reader.py: size, one document, no anchors or
aliases, no duplicate or non-string keys, no NaN or infinity); its kind is the
one the contract gives it (no `kind`: a leaderboard prereg, cells v1,
docs/contract.md; `kind: trials`: trials v1, docs/trials-contract.md; any other
kind is bad_prereg); it is checked against that kind's JSON Schema
(schema.py), then by that kind's own logic (leaderboard.py, trials.py: what a
schema cannot say, and the typed values the recompute uses).

`python -m impl_pandas` recomputes a leaderboard prereg and
`python -m impl_pandas trials` a trials prereg; each refuses the other kind.
"""

from __future__ import annotations

from typing import Any

from ..errors import BAD_PREREG, InputError
from ..yaml_reader import read_prereg
from . import schema

LEADERBOARD = "leaderboard"
TRIALS = "trials"
_COMMAND = {LEADERBOARD: "python -m impl_pandas", TRIALS: "python -m impl_pandas trials"}


def load_document(path: str) -> dict[str, Any]:
    """The prereg file read strictly (missing_file, too_large, unreadable, yaml_alias,
    yaml_duplicate_key, bad_prereg)."""
    return read_prereg(path)


def kind_of(doc: dict[str, Any], path: str) -> str:
    """leaderboard (no `kind`) or trials (`kind: trials`); bad_prereg for any other."""
    if "kind" not in doc:
        return LEADERBOARD
    if doc["kind"] == TRIALS:
        return TRIALS
    raise InputError(
        BAD_PREREG,
        path,
        f"kind {doc['kind']!r} is not a kind: a leaderboard prereg has no kind,"
        " a trials prereg says kind: trials",
    )


def validate(doc: Any, path: str, command: str) -> None:
    """The document's kind is the command's, and it satisfies that kind's schema."""
    if not isinstance(doc, dict):
        raise InputError(BAD_PREREG, path, "the document must be a mapping")
    kind = kind_of(doc, path)
    if kind != command:
        raise InputError(
            BAD_PREREG, path, f"a {kind} prereg: {_COMMAND[kind]} recomputes it, not this command"
        )
    schema.check(doc, kind, path)
