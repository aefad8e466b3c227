"""Error classes of the contract and their one-line report."""

from __future__ import annotations

import errno
import sys

MISSING_FILE = "missing_file"
TOO_LARGE = "too_large"  # the prereg file only (yaml_reader.py)
UNREADABLE = "unreadable"
# a column chunk in a parquet encoding the contract does not read (read.py; found with unreadable)
UNSUPPORTED_ENCODING = "unsupported_encoding"
YAML_ALIAS = "yaml_alias"  # the prereg file only
YAML_DUPLICATE_KEY = "yaml_duplicate_key"  # the prereg file only
BAD_PREREG = "bad_prereg"
MISSING_COLUMN = "missing_column"
UNDECLARED_COLUMN = "undeclared_column"
DUPLICATE_COLUMN = "duplicate_column"
UNSUPPORTED_TYPE = "unsupported_type"
DUPLICATE_KEY = "duplicate_key"
BAD_TYPE = "bad_type"
AMBIGUOUS_VALUE = "ambiguous_value"
BAD_DENOMINATOR = "bad_denominator"  # a row listing more instances than its denominator
BAD_SHARDS = "bad_shards"  # the shard commands only (shards.py)
BUNDLE_CHANGED = "bundle_changed"  # --lock: bytes other than the lock hashed (locked.py)
# trials v1 only (docs/trials-contract.md section 5; trials/tables.py)
BAD_KEY = "bad_key"
UNKNOWN_ROW = "unknown_row"
BAD_VALUE = "bad_value"

EXIT_INPUT = 2


class InputError(Exception):
    """Unusable input: one contract class, the file as given, a detail."""

    def __init__(self, cls: str, file: str, detail: str) -> None:
        super().__init__(f"{cls}: {file}: {detail}")
        self.cls = cls
        self.file = file
        self.detail = detail

    def line(self) -> str:
        """The single stderr line, whitespace in the detail collapsed."""
        detail = " ".join(str(self.detail).split())
        return f"error[{self.cls}]: {self.file}: {detail}"


DISK_FULL = "disk_full"  # not the input's fault, but the same one line and status
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


def full_disk(err: OSError) -> InputError | None:
    """A write that found no space (or a quota reached) as one reportable line; None for
    any other OSError. Outputs are renamed into place only whole, so nothing half written
    stays and the same command, run again once space is freed, writes them."""
    if err.errno not in _NO_SPACE:
        return None
    where = "-" if err.filename is None else str(err.filename)
    why = err.strerror or "No space left on device"
    return InputError(DISK_FULL, where, f"{why}; free space, run the same command again")


def report(err: InputError) -> int:
    """Print the error line on stderr and return the exit status."""
    sys.stderr.write(err.line() + "\n")
    sys.stderr.flush()
    return EXIT_INPUT
