"""Expected failures: one line on stderr, a fixed exit status, no traceback."""

from __future__ import annotations

import errno
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


FULL = (errno.ENOSPC, errno.EDQUOT)  # no space left; a quota reached


def disk_full(err: OSError) -> AuditError | None:
    """A write that failed for want of space, as a refusal naming the file (None:
    another OSError). Every write goes through a temporary file renamed into place,
    so nothing half-written is left: the same command resumes once space is freed."""
    if err.errno not in FULL:
        return None
    where = err.filename if err.filename is not None else "-"
    detail = f"{err.strerror or 'no space left on device'}; free space, run the same command again"
    return AuditError("disk_full", str(where), detail, UNUSABLE)
