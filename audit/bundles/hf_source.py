"""The lock's side of a fetched Hugging Face bundle: no network, only the record.

A bundle folder written by ``python -m audit fetch-hf`` holds ``hf-source.json``: the
repo, the commit, and each file's sha256 with the Hub's record of it. The lock
rehashes every recorded file and refuses one whose bytes changed (``hash_mismatch``)
or that is gone (``missing_file``), then records repo, commit and sha256s in the lock
and the ledger.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.files import open_regular, read_regular

RECORD = "hf-source.json"
MAX_RECORD = 1 << 20  # the record names a bundle's few files: a mebibyte is plenty
CHUNK = 1 << 20


def sha256_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open_regular(path) as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def git_blob_id(path: str | Path) -> str:
    """Git's blob id of a file: sha1 of ``blob <size>\\0`` and the bytes."""
    with open_regular(path) as f:
        h = hashlib.sha1(f"blob {os.fstat(f.fileno()).st_size}\0".encode())
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _file_name(name: str) -> bool:
    """A file of the bundle folder itself, as fetch-hf records it (no folder, not . or ..)."""
    return name not in ("", ".", "..") and "/" not in name and "\\" not in name


def check(bundle: str) -> dict[str, Any] | None:
    """The source record of a fetched bundle, every file rehashed; None if not fetched."""
    path = Path(bundle) / RECORD
    if not path.exists():
        return None
    raw = read_regular(path, MAX_RECORD, "too_large")
    try:
        record = json.loads(raw.decode("utf-8"))
        files = record["files"]
        repo, commit = record["repo"], record["commit"]
        shaped = isinstance(files, dict) and all(
            _file_name(n)
            and isinstance(e, dict)
            and isinstance(e.get("sha256"), str)
            and "hub" in e
            for n, e in files.items()
        )
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, KeyError, TypeError):
        shaped = False
    if not shaped:
        # a record fetch-hf did not write (a list of files, an entry without its sha256, a
        # name outside the folder): one line, not a traceback of the lock (a shipped
        # bundle may hold such a file too)
        raise AuditError("unreadable", str(path), "not a fetch record")
    for name, entry in sorted(files.items()):
        f = Path(bundle) / name
        if not f.is_file():
            raise AuditError("missing_file", str(f), f"recorded in {RECORD} but not there")
        sha = sha256_file(f)
        if sha != entry["sha256"]:
            raise AuditError(
                "hash_mismatch",
                str(f),
                f"sha256 {sha} but {repo}@{commit} recorded {entry['sha256']}",
            )
    return {
        "repo": repo,
        "repo_type": record.get("repo_type", "dataset"),
        "commit": commit,
        "checked_against": record.get("checked_against"),
        "files": {n: {"sha256": e["sha256"], "hub": e["hub"]} for n, e in sorted(files.items())},
    }
