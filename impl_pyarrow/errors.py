"""Input error classes of both contracts and their one-line report.

The leaderboard part (cells v1, docs/contract.md) and the trials part (trials v1,
docs/trials-contract.md, section 5) report alike; each contract has its own classes,
in the order it checks them."""

from __future__ import annotations

import sys

# Classes in the order the contract checks them.
ERROR_CLASSES: tuple[str, ...] = (
    "missing_file",
    "too_large",  # the prereg file only, as the next two
    "unreadable",
    # a column chunk in an encoding the contract does not read: found as the footer is read
    "unsupported_encoding",
    "yaml_alias",
    "yaml_duplicate_key",
    "bad_prereg",
    "missing_column",
    "undeclared_column",
    "duplicate_column",
    "unsupported_type",
    "duplicate_key",
    "bad_type",
    "ambiguous_value",
    "bad_denominator",  # a row listing more instances than its declared denominator
    # sharded null draws (null-draws, null-merge): after missing_file, unreadable, bad_prereg
    "bad_shards",
    # --lock: a bundle file whose bytes are not the ones the lock hashed (contract, "The lock")
    "bundle_changed",
)


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


class InputError(Exception):
    """Unusable input: reported as `error[<class>]: <file>: <detail>`, exit 2."""

    CLASSES: tuple[str, ...] = ERROR_CLASSES  # the classes this contract knows

    def __init__(self, error_class: str, file: str, detail: str) -> None:
        if error_class not in self.CLASSES:
            raise ValueError(f"unknown error class {error_class!r}")
        super().__init__(f"error[{error_class}]: {file}: {detail}")
        self.error_class = error_class
        self.file = file
        self.detail = detail

    def line(self) -> str:
        """The single stderr line, newlines in the detail flattened."""
        detail = " ".join(str(self.detail).split())
        return f"error[{self.error_class}]: {self.file}: {detail}"


class TrialInputError(InputError):
    """Unusable input to the trials part: the trials contract's classes."""

    CLASSES = TRIAL_ERROR_CLASSES


def fail(error_class: str, file: str, detail: str) -> TrialInputError:
    """The trials part's error to raise."""
    return TrialInputError(error_class, file, detail)


def report(err: InputError) -> int:
    """Print the error line on stderr and return the exit status 2."""
    sys.stderr.write(err.line() + "\n")
    sys.stderr.flush()
    return 2
