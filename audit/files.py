"""Hashing and atomic writing of files; JSON read with every key once."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

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


def file_blake3(path: str | Path) -> str:
    """Hex blake3 of a file's bytes; a missing or unreadable file is an AuditError."""
    p = Path(path)
    if not p.exists():
        raise AuditError("missing_file", str(path), "no such file")
    if not p.is_file():
        raise AuditError("missing_file", str(path), "not a regular file")
    h = blake3.blake3()
    try:
        with p.open("rb") as f:
            while chunk := f.read(CHUNK):
                h.update(chunk)
    except OSError as e:
        raise AuditError("unreadable", str(path), e.strerror or str(e)) from None
    return h.hexdigest()


def file_digests(path: str | Path) -> dict[str, object]:
    """A file's blake3, sha256 and size, from one pass over its bytes."""
    import hashlib

    p = Path(path)
    if not p.exists():
        raise AuditError("missing_file", str(path), "no such file")
    if not p.is_file():
        raise AuditError("missing_file", str(path), "not a regular file")
    b, s, n = blake3.blake3(), hashlib.sha256(), 0
    try:
        with p.open("rb") as f:
            while chunk := f.read(CHUNK):
                b.update(chunk)
                s.update(chunk)
                n += len(chunk)
    except OSError as e:
        raise AuditError("unreadable", str(path), e.strerror or str(e)) from None
    return {"blake3": b.hexdigest(), "sha256": s.hexdigest(), "bytes": n}


def read_regular(path: str | Path, limit: int, kind: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or AuditError(kind).

    Opened without blocking and checked on the open descriptor (fstat), so a FIFO, a
    device or a socket named where a file is expected is refused at once instead of
    hanging the reader, and a file swapped after a check is the file judged."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise AuditError("missing_file", str(path), "no such file") from None
    except OSError as e:
        raise AuditError("unreadable", str(path), e.strerror or str(e)) from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AuditError(kind, str(path), "not a regular file (a FIFO, device or folder)")
        if st.st_size > limit:
            raise AuditError(kind, str(path), f"{st.st_size} bytes, more than {limit}")
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise AuditError("unreadable", str(path), e.strerror or str(e)) from None
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
