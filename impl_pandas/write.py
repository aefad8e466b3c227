"""CSV rendering and atomic writing of the output files."""

from __future__ import annotations

import csv
import io
import os


def render(header: list[str], rows: list[list[str]]) -> bytes:
    """UTF-8 CSV, minimal quoting, '\\n' line ends, header first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def write_all(out_dir: str, files: dict[str, bytes]) -> None:
    """Create out_dir, write each file to a temporary file in it, then rename all into place."""
    os.makedirs(out_dir, exist_ok=True)
    staged: list[tuple[str, str]] = []
    try:
        for name, data in files.items():
            tmp = os.path.join(out_dir, f".{name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            staged.append((tmp, os.path.join(out_dir, name)))
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as err:
                if err.filename is None:  # a write names no file: the output it was for
                    err.filename = os.path.join(out_dir, name)
                raise
        for tmp, final in staged:
            os.replace(tmp, final)
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
