"""A prereg against its JSON Schema (workflow/schemas/), with the jsonschema library.

The schemas sit in workflow/schemas/ beside this package's folder: in a clone,
and in the clone-shaped folder `secondseat audit` lays out for an installed
run (the workflow puts that folder on PYTHONPATH); an installed wheel keeps
them as data of the secondseat package, beside this one in site-packages.

An integer is an int written as one: JSON Schema's own integer type takes
7.0 and true, a prereg's does not (docs/contract.md, "The prereg file").
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..errors import BAD_PREREG, MISSING_FILE, InputError

_ABOVE = Path(__file__).resolve().parents[2]  # the folder that holds impl_pandas/
_PLACES = (
    _ABOVE / "workflow" / "schemas",  # a clone, or the folder an installed run uses
    _ABOVE / "secondseat" / "shipped" / "workflow" / "schemas",  # site-packages of a wheel
)
FILES = {"leaderboard": "prereg.schema.yaml", "trials": "trials-prereg.schema.yaml"}
_LONGEST = 160  # characters of jsonschema's message kept in the one line


def schema_path(kind: str) -> Path:
    """The schema file of a prereg kind; the first place that holds it."""
    for folder in _PLACES:
        if (folder / FILES[kind]).is_file():
            return folder / FILES[kind]
    return _PLACES[0] / FILES[kind]


def _only_ints(_checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


_Strict = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _only_ints),
)


@cache
def _validator(kind: str) -> Any:
    path = schema_path(kind)
    if not path.is_file():
        raise InputError(MISSING_FILE, str(path), "the contract's schema file is absent")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8") as handle:
        return _Strict(yaml.load(handle, Loader=loader))


def _where(parts: Any) -> str:
    return ".".join(str(p) for p in parts)


def _detail(err: jsonschema.ValidationError) -> str:
    """The error as a line that names the key path (dotted, as the own checks write it)."""
    where = _where(err.absolute_path)
    if err.validator == "required":
        missing = next((k for k in err.validator_value if k not in err.instance), "?")
        return f"key '{_where([*err.absolute_path, missing])}' is missing"
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties", {}))
        extra = sorted(str(k) for k in err.instance if k not in allowed)
        if extra:
            return f"unknown key '{_where([*err.absolute_path, extra[0]])}'"
    if err.validator == "oneOf":
        message = "matches none of the shapes the schema allows here"
    else:
        message = err.message
        if len(message) > _LONGEST:
            message = message[: _LONGEST - 3] + "..."
    return f"{where or 'the document'}: {message}"


def check(doc: Any, kind: str, path: str) -> None:
    """bad_prereg for the first schema violation, in key-path order."""
    errors = list(_validator(kind).iter_errors(doc))
    if errors:
        first = min(errors, key=lambda e: [str(p) for p in e.absolute_path])
        raise InputError(BAD_PREREG, path, f"schema {FILES[kind]}: {_detail(first)}")
