"""CSV output written atomically: a temporary file in OUT_DIR renamed into place."""

from __future__ import annotations

import csv
import errno
import io
import os
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the null-draws subcommands write CSV without importing Arrow
    import pyarrow as pa


def render_csv(header: list[str], rows: list[list[str]]) -> bytes:
    """UTF-8 CSV, `\\n` line ends, minimal quoting."""
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def render_table(table: pa.Table) -> bytes:
    """A table of string columns as `render_csv` writes it: its names the header, a null
    an empty field."""
    columns = [column.to_pylist() for column in table.columns]
    rows = [["" if v is None else v for v in row] for row in zip(*columns)]
    return render_csv(table.column_names, rows)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_FULL = (errno.ENOSPC, errno.EDQUOT)


class DiskFull(Exception):
    """No space left (or a quota reached) while writing `path`: the temporary file is
    removed and nothing was renamed into place, so the same command redoes the write."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(path, why)
        self.path, self.why = path, why

    def line(self) -> str:
        return f"error[disk_full]: {self.path}: {self.why}; free space, run the same command again"


def write_file(path: str, data: bytes, mode: int | None = None) -> None:
    """Write one file through a temporary file in its directory, renamed into place."""
    if mode is None:
        mode = 0o666 & ~_umask()
    directory, name = os.path.split(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory or ".")
    except OSError as exc:
        if exc.errno in _FULL:
            raise DiskFull(path, exc.strerror or "No space left on device") from None
        raise
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.errno in _FULL:
            raise DiskFull(path, exc.strerror or "No space left on device") from None
        raise


def write_outputs(out_dir: str, files: dict[str, bytes]) -> None:
    """Create OUT_DIR, then write each file to a temporary name and rename it."""
    os.makedirs(out_dir, exist_ok=True)
    mode = 0o666 & ~_umask()
    for name, data in files.items():
        write_file(os.path.join(out_dir, name), data, mode)
