"""Input error classes of the trials contract (section 5), reported as in cells v1."""

from __future__ import annotations

from ..errors import InputError

# Classes in the order the trials contract checks them.
TRIAL_ERROR_CLASSES: tuple[str, ...] = (
    "missing_file",
    "too_large",  # the prereg file only, as the next two
    "unreadable",
    "yaml_alias",
    "yaml_duplicate_key",
    "bad_prereg",
    "missing_column",
    "undeclared_column",
    "duplicate_column",
    "bad_type",
    "bad_key",
    "duplicate_key",
    "unknown_row",
    "bad_value",
)


class TrialInputError(InputError):
    """Unusable input: `error[<class>]: <file>: <detail>`, exit 2."""

    CLASSES = TRIAL_ERROR_CLASSES


def fail(error_class: str, file: str, detail: str) -> TrialInputError:
    """The error to raise."""
    return TrialInputError(error_class, file, detail)
