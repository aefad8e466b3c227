"""The lock's record (lock/lock.json and lock/files.json) as frozen records.

The lock writes both files (audit/lock/shared.py); every later reader (the census,
the certificates, the seal, versus) reads them here, once per process, by attribute:
``read_lock`` and ``read_files``. A file that is not there is ``missing_file``; one
that is not of the lock's shape is ``unreadable`` (neither is half read). Lives at
the bottom (the seal) so that every package may read it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from audit.errors import AuditError


@dataclass(frozen=True)
class Table:
    """A bundle table as the lock read it (lock.json ``bundle``)."""

    role: str
    file: str
    rows: int
    columns: int
    content_digest: str


@dataclass(frozen=True)
class Jobs:
    """A trials source's jobs folder as the lock hashed it."""

    root: str
    files: tuple[Mapping[str, Any], ...]  # each file's entry, as written


@dataclass(frozen=True)
class Lock:
    """lock.json: the prereg's name and blake3, the bundle's tables by role (the file's
    order), a trials source's jobs, an amendment's parent (arm, head), and what else the
    lock recorded, as written (``extra``: publisher hash, source)."""

    format: str
    prereg_name: str
    prereg_blake3: str
    bundle: Mapping[str, Table]
    jobs: Jobs | None
    amends: tuple[str, str] | None
    extra: Mapping[str, Any]


@dataclass(frozen=True)
class File:
    """A file the lock hashed (files.json): its name and digests."""

    role: str
    file: str
    blake3: str
    sha256: str
    bytes: int


def _read(path: str | Path, what: str) -> Any:
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AuditError("missing_file", str(p), f"no such file ({what})") from None
    except (OSError, UnicodeDecodeError, ValueError):
        raise AuditError("unreadable", str(p), f"not {what}") from None


def parse_lock(doc: Any, path: str) -> Lock:
    """The record of a lock.json document; ``unreadable`` if it is not of its shape."""
    try:
        p = doc["prereg"]
        bundle = {
            str(role): Table(
                str(role), str(t["file"]), int(t["rows"]), int(t["columns"]), t["content_digest"]
            )
            for role, t in doc["bundle"].items()
        }
        known = ("format", "prereg", "bundle", "jobs", "amends")
        extra = {k: v for k, v in doc.items() if k not in known}
        jobs = doc.get("jobs")
        amends = doc.get("amends")
        return Lock(
            str(doc["format"]),
            str(p["name"]),
            str(p["blake3"]),
            MappingProxyType(bundle),
            Jobs(str(jobs["root"]), tuple(MappingProxyType(f) for f in jobs["files"]))
            if jobs is not None
            else None,
            (str(amends["arm"]), str(amends["head"])) if amends is not None else None,
            MappingProxyType(extra),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise AuditError("unreadable", path, "not a lock's lock.json") from None


def read_lock(path: str | Path) -> Lock:
    """lock/lock.json, read and parsed."""
    return parse_lock(_read(path, "a lock's lock.json"), str(path))


def parse_files(doc: Any, path: str) -> Mapping[str, File]:
    """The records of a files.json document, by role (the file's order)."""
    try:
        return MappingProxyType(
            {
                str(role): File(
                    str(role), str(t["file"]), str(t["blake3"]), str(t["sha256"]), int(t["bytes"])
                )
                for role, t in doc.items()
            }
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        raise AuditError("unreadable", path, "not a lock's files.json") from None


def read_files(path: str | Path) -> Mapping[str, File]:
    """lock/files.json, read and parsed."""
    return parse_files(_read(path, "a lock's files.json"), str(path))


def check_seat_table(expect_lock: str, first: Lock, role: str, where: str, digest: object) -> None:
    """bundle_changed: a second seat's table ``role`` (the file ``where``, its content
    digest ``digest``) does not hold the content the first seat's lock ``first`` (read
    from ``expect_lock``) recorded for that role (a role it did not lock is other content
    too). The one comparison the lock and the workflow's preflight both make."""
    was = first.bundle[role].content_digest if role in first.bundle else None
    if digest != was:
        raise AuditError(
            "bundle_changed", where, f"content digest is {digest} but {expect_lock} locked {was}"
        )


def check_seat_jobs(expect_lock: str, first: Lock, where: str, files: list[dict[str, str]]) -> None:
    """bundle_changed: a second seat's trials source's jobs files (path, blake3, in the
    lock's order) are not those the first seat's lock ``first`` recorded."""
    want = None if first.jobs is None else [dict(f) for f in first.jobs.files]
    if files != want:
        raise AuditError(
            "bundle_changed", where, f"the jobs files differ from those {expect_lock} locked"
        )
