"""A prereg document: read as plain data, its kind, then its kind's JSON Schema.

The reading rules (plain_yaml.py) run first. The kind is the contract's: a
document without ``kind`` is a leaderboard prereg (cells v1), ``kind: trials``
a trials prereg (trials v1), any other kind is refused. The schema of that kind
(workflow/schemas/ beside this package, as in a clone and in the clone-shaped
folder an installed run lays out) is checked with jsonschema, an integer being
only an int written as one (7.0 and true are not); the first violation is
reported as bad_prereg, naming its key path. The parsers then check what a schema
cannot say (.cells, .trials).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..errors import InputError
from ..plain_yaml import load_plain

LEADERBOARD = "leaderboard"
TRIALS = "trials"
SCHEMAS = Path(__file__).resolve().parents[2] / "workflow" / "schemas"
SCHEMA_FILES = {LEADERBOARD: "prereg.schema.yaml", TRIALS: "trials-prereg.schema.yaml"}
COMMANDS = {LEADERBOARD: "python -m impl_pyarrow", TRIALS: "python -m impl_pyarrow trials"}
_LONGEST = 200  # characters of a violation's message kept in the one line


def load(path: str, fail: Any = InputError) -> dict[str, Any]:
    """The prereg as plain data; ``fail(class, path, detail)`` builds the error."""
    return load_plain(path, fail)


def kind_of(doc: dict[str, Any], path: str, fail: Any = InputError) -> str:
    """leaderboard or trials; bad_prereg for any other kind."""
    kind = doc.get("kind")
    if kind is None:
        return LEADERBOARD
    if kind == TRIALS:
        return TRIALS
    raise fail(
        "bad_prereg",
        path,
        f"kind {kind!r} is not a kind: leave it out for a leaderboard prereg (cells v1),"
        " or write kind: trials (trials v1)",
    )


def _only_ints(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_Strict = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _only_ints),
)


@cache
def validator(kind: str) -> Any:
    """The validator of one kind's schema file (the schema itself is held to its
    metaschema by tests/test_schemas.py, not again in every run)."""
    text = (SCHEMAS / SCHEMA_FILES[kind]).read_text(encoding="utf-8")
    return _Strict(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


def key_path(parts: Any) -> str:
    """A violation's place as the dotted key path the other messages use."""
    names = [str(p) for p in parts]
    return ".".join(names) if names else "(top level)"


def _violation(err: jsonschema.ValidationError) -> str:
    message = " ".join(err.message.split())
    if len(message) > _LONGEST:
        message = message[: _LONGEST - 3] + "..."
    return f"at {key_path(err.absolute_path)}: {message}"


def expect_kind(doc: dict[str, Any], path: str, want: str, fail: Any = InputError) -> None:
    """bad_prereg unless the document is a prereg of kind `want`."""
    kind = kind_of(doc, path, fail)
    if kind != want:
        raise fail(
            "bad_prereg",
            path,
            f"a {kind} prereg: it is read by {COMMANDS[kind]}, not by {COMMANDS[want]}",
        )


def check(doc: dict[str, Any], path: str, want: str, fail: Any = InputError) -> None:
    """The document is a prereg of kind `want` and meets that kind's schema."""
    expect_kind(doc, path, want, fail)
    try:
        strict = validator(want)
    except OSError as exc:  # an incomplete copy of the project, not a fault of the prereg
        where = str(SCHEMAS / SCHEMA_FILES[want])
        raise fail("missing_file", where, f"the {want} prereg schema cannot be read: {exc}")
    found = jsonschema.exceptions.best_match(strict.iter_errors(doc))
    if found is not None:
        raise fail("bad_prereg", path, _violation(found))
