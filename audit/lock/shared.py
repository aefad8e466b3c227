"""What both kinds' locks share: the prereg read once, the lock's files written.

The prereg is opened once: the bytes hashed are the bytes parsed and the bytes
copied into the lock, so no change to the file after that read can reach the lock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import blake3

from audit.core.strict_yaml import MAX_BYTES, parse_strict
from audit.errors import AuditError
from audit.files import CHUNK, file_digests, open_regular, write_atomic
from audit.seal import ledger


@dataclass(frozen=True)
class Prereg:
    """The prereg as the lock read it: its path, bytes, blake3 and strictly read document
    (not yet checked against its kind's schema)."""

    path: str
    data: bytes
    blake3: str
    doc: dict[str, Any]


def read_prereg(path: str, expected: str) -> Prereg:
    """The prereg read once, whose blake3 must be ``expected`` (prereg_changed otherwise).

    Every byte is hashed; only the first MAX_BYTES + 1 are kept (a larger file is
    too_large once its blake3 matches)."""
    h = blake3.blake3()
    kept = bytearray()
    with open_regular(path) as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
            if len(kept) <= MAX_BYTES:
                kept += chunk[: MAX_BYTES + 1 - len(kept)]
    actual = h.hexdigest()
    if actual != expected:
        raise AuditError(
            "prereg_changed",
            path,
            f"blake3 is {actual} but the config expects {expected}; "
            "a changed method is a new arm (an amendment), not an edit",
        )
    data = bytes(kept)
    return Prereg(path, data, actual, parse_strict(data, path))


def split_files(tables: dict[str, dict]) -> tuple[dict[str, dict], dict[str, dict]]:
    """(content, files): what the content is, and the bytes that carried it.

    lock.json records content (digests any parquet writer gives alike); files.json
    the files' own blake3 and sha256, which depend on the writer, and which every
    job that reads a bundle file checks its bytes against (docs/seal.md)."""
    content: dict[str, dict] = {}
    files: dict[str, dict] = {}
    for role, t in tables.items():
        content[role] = {k: v for k, v in t.items() if k not in ("blake3", "sha256", "bytes")}
        files[role] = {k: t[k] for k in ("file", "blake3", "sha256", "bytes") if k in t}
    return content, files


def file_record(path: str, name: str) -> dict[str, object]:
    """A bundle file's name and digests, hashed in one pass over its bytes."""
    return {"file": name, **file_digests(path)}


def write_lock(prereg: Prereg, out_dir: str, record: dict) -> None:
    """Write the prereg's bytes as read (prereg.yaml), lock.json and files.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "prereg.yaml", prereg.data)
    content, files = split_files(record["bundle"])
    body = {**record, "bundle": content}
    write_atomic(out / "files.json", json.dumps(files, indent=2, sort_keys=True) + "\n")
    write_atomic(out / "lock.json", json.dumps(body, indent=2, sort_keys=True) + "\n")


def locked_event(prereg: Prereg) -> dict[str, object]:
    """The ledger's prereg_locked event: the prereg file and the blake3 of the bytes the
    lock read (the one the config expects: read_prereg refused any other)."""
    return {
        "event": "prereg_locked",
        "subject": prereg.path,
        "blake3": prereg.blake3,
        "time": ledger.now(),
        "expected_blake3": prereg.blake3,
    }
