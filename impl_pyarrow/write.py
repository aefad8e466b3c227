"""CSV output written atomically: a temporary file in OUT_DIR renamed into place."""

from __future__ import annotations

import csv
import io
import os
import tempfile


def render_csv(header: list[str], rows: list[list[str]]) -> bytes:
    """UTF-8 CSV, `\\n` line ends, minimal quoting."""
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_outputs(out_dir: str, files: dict[str, bytes]) -> None:
    """Create OUT_DIR, then write each file to a temporary name and rename it."""
    os.makedirs(out_dir, exist_ok=True)
    mode = 0o666 & ~_umask()
    for name, data in files.items():
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out_dir)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, os.path.join(out_dir, name))
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
