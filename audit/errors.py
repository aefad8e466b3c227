"""Expected failures: one line on stderr, a fixed exit status, no traceback."""

from __future__ import annotations

import sys

UNUSABLE = 2  # the input cannot be used
FAILED = 1  # the input was usable and a check failed


class AuditError(Exception):
    """An expected failure with a class, the file it concerns and what is wrong."""

    def __init__(self, kind: str, path: str, detail: str, status: int = UNUSABLE) -> None:
        super().__init__(f"error[{kind}]: {path}: {detail}")
        self.kind = kind
        self.path = path
        self.detail = detail
        self.status = status


def report(err: AuditError) -> int:
    """Print the one-line message and return the exit status."""
    print(str(err), file=sys.stderr)
    return err.status
