"""--lock: compute only from the bytes the lock hashed (contract, "The lock").

Each bundle file the lock names (lock/files.json) is read once, in chunks, into
a private copy while its blake3 is taken; when the digest is the lock's, the
run reads the copy, so a file swapped after the check cannot be read instead.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from blake3 import blake3

from .errors import BAD_PREREG, BUNDLE_CHANGED, MISSING_FILE, InputError

CHUNK = 8 << 20


def _entries(lock_files: str) -> list[tuple[str, str]]:
    try:
        with open(lock_files, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        raise InputError(MISSING_FILE, lock_files, "no such file (the lock's files)") from None
    except (OSError, ValueError) as exc:
        raise InputError(BAD_PREREG, lock_files, f"not the lock's files.json ({exc})") from None
    try:
        return [(str(t["file"]), str(t["blake3"])) for t in doc.values()]
    except (AttributeError, KeyError, TypeError):
        raise InputError(BAD_PREREG, lock_files, "not the lock's files.json") from None


def _copy_checked(src: str, dst: str, want: str) -> None:
    digest = blake3()
    try:
        with open(src, "rb") as fin, open(dst, "wb") as fout:
            for chunk in iter(lambda: fin.read(CHUNK), b""):
                digest.update(chunk)
                fout.write(chunk)
    except FileNotFoundError:
        raise InputError(MISSING_FILE, src, "no such regular file") from None
    got = digest.hexdigest()
    if got != want:
        raise InputError(
            BUNDLE_CHANGED,
            src,
            f"blake3 is {got} but the lock hashed {want}; changed after the lock, not audited",
        )


@contextmanager
def locked_bundle(bundle: str, lock_files: str | None) -> Iterator[str]:
    """The bundle folder to read: the given one, or a checked private copy."""
    if lock_files is None:
        yield bundle
        return
    work = tempfile.mkdtemp(prefix="impl-pandas-locked-")
    try:
        for name, want in _entries(lock_files):
            target = os.path.join(work, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _copy_checked(os.path.join(bundle, name), target, want)
        try:
            yield work
        except InputError as err:  # name the bundle's file, not the private copy
            if err.file.startswith(work + os.sep):
                err.file = os.path.join(bundle, err.file[len(work) + 1 :])
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
