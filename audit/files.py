"""Hashing and atomic writing of files; JSON read with every key once."""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import blake3

from audit.errors import AuditError

CHUNK = 1 << 20


class DuplicateKey(ValueError):
    """A JSON object names one key twice: which value is meant cannot be said (readers
    differ: Python keeps the last, others the first), so such a document is refused."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for k, v in pairs:
        if k in out:
            raise DuplicateKey(k)
        out[k] = v
    return out


def json_loads(text: str | bytes) -> object:
    """``json.loads`` refusing any object that names a key twice (DuplicateKey)."""
    return json.loads(text, object_pairs_hook=_unique_keys)


def _what(mode: int) -> str:
    """What a file that is not a regular one is, in a reader's words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def not_regular(path: str | Path, mode: int) -> str:
    """The problem said of a file that is not a regular one (kept to one phrase)."""
    return f"{_what(mode)}, not a regular file"


def require_regular(path: str | Path, shown: str | None = None) -> os.stat_result:
    """The status of an input that must be a regular file (links followed), or
    AuditError: missing_file when absent or when a folder, FIFO, device or socket
    stands where a file is expected. Never opens the file, so never blocks."""
    name = str(path) if shown is None else shown
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise AuditError("missing_file", name, "no such file") from None
    except OSError as e:
        raise AuditError("unreadable", name, e.strerror or str(e)) from None
    if not stat.S_ISREG(st.st_mode):
        raise AuditError("missing_file", name, not_regular(path, st.st_mode))
    return st


@contextmanager
def open_regular(
    path: str | Path, shown: str | None = None, kind: str = "missing_file"
) -> Iterator[BinaryIO]:
    """An input opened for reading, which must be a regular file: the one way the referee
    opens a file it is given (bundle, prereg, a file the config names, an annex's files).

    Opened without blocking and judged on the open descriptor (fstat), so a FIFO, a
    device or a socket named where a file is expected is refused at once (AuditError
    ``kind``, missing_file by default) instead of hanging the reader, and a file
    swapped after a check is the file judged. Absent: missing_file; not readable
    (permissions, I/O): unreadable."""
    name = str(path) if shown is None else shown
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise AuditError("missing_file", name, "no such file") from None
    except IsADirectoryError:
        raise AuditError(kind, name, not_regular(path, stat.S_IFDIR)) from None
    except OSError as e:  # a FIFO opened without blocking opens; a socket does not
        if e.errno == errno.ENXIO:
            raise AuditError(kind, name, not_regular(path, stat.S_IFSOCK)) from None
        raise AuditError("unreadable", name, e.strerror or str(e)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):  # a folder opens for reading too
        os.close(fd)
        raise AuditError(kind, name, not_regular(path, mode))
    with os.fdopen(fd, "rb") as f:
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)  # a regular file: reads as usual
        try:
            yield f
        except OSError as e:
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                raise
            raise AuditError("unreadable", name, e.strerror or str(e)) from None


def file_blake3(path: str | Path) -> str:
    """Hex blake3 of a file's bytes; a missing, special or unreadable file is an AuditError."""
    h = blake3.blake3()
    with open_regular(path) as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def file_digests(path: str | Path) -> dict[str, object]:
    """A file's blake3, sha256 and size, from one pass over its bytes."""
    import hashlib

    b, s, n = blake3.blake3(), hashlib.sha256(), 0
    with open_regular(path) as f:
        while chunk := f.read(CHUNK):
            b.update(chunk)
            s.update(chunk)
            n += len(chunk)
    return {"blake3": b.hexdigest(), "sha256": s.hexdigest(), "bytes": n}


def read_regular(path: str | Path, limit: int, kind: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or AuditError(kind)
    (missing_file when absent). Read through open_regular: a FIFO, a device, a socket
    or a folder is refused at once as ``kind``, and nothing past the limit is read."""
    with open_regular(path, kind=kind) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise AuditError(kind, str(path), f"{size} bytes, more than {limit}")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise AuditError(kind, str(path), f"more than {limit} bytes")
    return data


def text_blake3(text: str) -> str:
    return blake3.blake3(text.encode("utf-8")).hexdigest()


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write through a temporary file in the same folder, then rename into place."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.filename is None:
            err.filename = str(p)  # a failed write names no file; say which
        raise


def regular_files(root: str | Path) -> list[str]:
    """Every regular file under ``root`` (symlinked folders followed), as paths relative to
    it, in code-point order: what a trials arm's lock hashes of its jobs root, and what
    preflight and an amendment compare with the lock (docs/trials-contract.md 2.6)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames.sort()
        for f in filenames:
            p = Path(dirpath) / f
            if p.is_file():
                out.append(p.relative_to(root).as_posix())
    return sorted(out)


def folder_blake3(root: str | Path) -> str:
    """One blake3 over a folder's regular files (regular_files): each relative path and its
    bytes' blake3, in that order (listing_blake3); "" for a folder that is not there. What
    the files hold, never their times: the same bytes give the same digest wherever they
    are checked out."""
    if not Path(root).is_dir():
        return ""
    return listing_blake3([(rel, file_blake3(Path(root, rel))) for rel in regular_files(root)])


def listing_blake3(listing: Iterable[tuple[str, str]]) -> str:
    """One blake3 over (relative path, blake3) pairs in their order: folder_blake3's, from
    a listing already known (a lock's jobs files)."""
    return text_blake3(json.dumps([[rel, b3] for rel, b3 in listing]))
