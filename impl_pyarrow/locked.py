"""--lock FILES: the contestant reads only bytes whose blake3 the lock recorded.

A file's bytes are taken once through Arrow's own file interface into one
buffer, hashed, and, when the lock's digest matches, written to a private
folder this run reads instead of the bundle (contract, "The lock").
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import blake3
import pyarrow as pa

from .errors import InputError


def _digests(lock_files: Path) -> dict[str, str]:
    if not lock_files.is_file():
        raise InputError("missing_file", str(lock_files), "no such file (the lock's files)")
    try:
        roles = json.loads(lock_files.read_text(encoding="utf-8"))
        return {entry["file"]: entry["blake3"] for entry in roles.values()}
    except (ValueError, AttributeError, KeyError, TypeError) as exc:
        raise InputError(
            "bad_prereg", str(lock_files), f"not the lock's files.json ({exc})"
        ) from None


class LockedBundle:
    """with LockedBundle(bundle, files) as folder: read ``folder``, never ``bundle``."""

    def __init__(self, bundle: str, lock_files: str | None) -> None:
        self.bundle = Path(bundle)
        self.lock_files = None if lock_files is None else Path(lock_files)
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> str:
        if self.lock_files is None:
            return str(self.bundle)
        self._tmp = tempfile.TemporaryDirectory(prefix="impl-pyarrow-locked-")
        try:
            self._fill(Path(self._tmp.name))
        except BaseException:
            self._tmp.cleanup()
            raise
        return self._tmp.name

    def _fill(self, folder: Path) -> None:
        assert self.lock_files is not None
        for name, expected in sorted(_digests(self.lock_files).items()):
            source = self.bundle / name
            if not source.is_file():
                raise InputError("missing_file", str(source), "no such regular file")
            with pa.OSFile(str(source), "rb") as handle:
                data = handle.read_buffer()
            actual = blake3.blake3(memoryview(data)).hexdigest()
            if actual != expected:
                raise InputError(
                    "bundle_changed",
                    str(source),
                    f"blake3 is {actual}, the lock hashed {expected}: changed since the lock",
                )
            copy = folder / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            with pa.OSFile(str(copy), "wb") as out:
                out.write(data)

    def __exit__(self, kind: object, err: object, tb: object) -> None:
        if self._tmp is None:
            return
        folder = Path(self._tmp.name)
        if isinstance(err, InputError) and Path(err.file).is_relative_to(folder):
            err.file = str(self.bundle / Path(err.file).relative_to(folder))  # the bundle's name
        self._tmp.cleanup()
