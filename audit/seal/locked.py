"""What is computed is what was locked: a bundle's files, checked against lock/files.json.

A job that reads a bundle file reads its bytes once into a private copy while
hashing them; the job then reads the copy. A file changed after the lock,
whatever its modification time, is refused with both digests (docs/seal.md).
The contestants each do the same in their own code (their --lock option).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import blake3

from audit.errors import AuditError

CHUNK = 8 << 20


def lock_digests(files_json: str | Path) -> dict[str, str]:
    """file name -> blake3, from a lock's files.json."""
    p = Path(files_json)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
        return {str(t["file"]): str(t["blake3"]) for t in doc.values()}
    except FileNotFoundError:
        raise AuditError("missing_file", str(p), "no such file (the lock's files)") from None
    except (OSError, UnicodeDecodeError, ValueError, AttributeError, KeyError, TypeError):
        raise AuditError("unreadable", str(p), "not a lock's files.json") from None


def copy_checked(src: Path, dst: Path, expected: str) -> None:
    h = blake3.blake3()
    try:
        with src.open("rb") as fin, dst.open("wb") as fout:
            while chunk := fin.read(CHUNK):
                h.update(chunk)
                fout.write(chunk)
    except FileNotFoundError:
        raise AuditError("missing_file", str(src), "no such file") from None
    except OSError as e:
        raise AuditError("unreadable", str(src), e.strerror or str(e)) from None
    if h.hexdigest() != expected:
        raise AuditError(
            "bundle_changed",
            str(src),
            f"blake3 is {h.hexdigest()} but the lock hashed {expected}: changed after the "
            "lock, so it is not audited under the lock's name",
        )


@contextmanager
def locked_bundle(bundle: str, files_json: str | None) -> Iterator[str]:
    """The folder a job reads: ``bundle`` itself without a lock, else a checked copy."""
    if files_json is None:
        yield bundle
        return
    work = Path(tempfile.mkdtemp(prefix="secondseat-locked-"))
    try:
        for name, expected in lock_digests(files_json).items():
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            copy_checked(Path(bundle) / name, work / name, expected)
        yield str(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
