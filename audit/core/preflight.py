"""Checks made before any job runs, as tested Python (workflow/rules/preflight.smk calls them).

Each check raises an AuditError (one line, exit 2) and writes nothing. The ones
here guard an arm that is already locked: once ``results/<arm>/lock/lock.json``
exists, the arm holds one method, on one bundle's content, from one seat, and a
run naming another is refused before any job (docs/seal.md, "An arm is
immutable"). The same command with the same inputs stays a no-op.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.files import file_blake3

NEW_ARM = "another bundle, method or seat is a new arm: run it under a new arm name"
NEVER = "the locked arm is never overwritten"


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise AuditError("unreadable", str(path), f"{what} cannot be read ({type(e).__name__})")


@dataclass(frozen=True)
class Locked:
    """What an arm's lock holds: the prereg's blake3, each bundle role's content digest
    and file bytes, the jobs files (a trials source), and the prereg file the lock read."""

    lock_path: str
    prereg_blake3: str
    content: Mapping[str, str]  # role -> content digest (lock.json)
    files: Mapping[str, tuple[str, str]]  # role -> (file name, blake3) (files.json)
    jobs: tuple[tuple[str, str], ...] | None  # (path under the jobs root, blake3)
    prereg_subject: str | None  # the prereg file the lock read (its event), when recorded


def read_lock(res: str | Path) -> Locked | None:
    """The arm's lock, or None when the arm is not locked (no lock.json)."""
    path = Path(res, "lock", "lock.json")
    if not path.is_file():
        return None
    doc = _read_json(path, "the arm's lock")
    try:
        blake3_hex = str(doc["prereg"]["blake3"])
        content = {str(r): str(t["content_digest"]) for r, t in doc["bundle"].items()}
        jobs = doc.get("jobs")
        jobs_files = (
            tuple((str(f["path"]), str(f["blake3"])) for f in jobs["files"]) if jobs else None
        )
    except (KeyError, TypeError, AttributeError):
        raise AuditError("unreadable", str(path), "not an arm's lock.json") from None
    files: dict[str, tuple[str, str]] = {}
    files_path = Path(res, "lock", "files.json")
    if files_path.is_file():
        try:
            files = {
                str(r): (str(t["file"]), str(t["blake3"]))
                for r, t in _read_json(files_path, "the arm's files.json").items()
            }
        except (KeyError, TypeError, AttributeError):
            raise AuditError("unreadable", str(files_path), "not a lock's files.json") from None
    return Locked(str(path), blake3_hex, content, files, jobs_files, _prereg_subject(res))


def _prereg_subject(res: str | Path) -> str | None:
    """The prereg file the lock read, from its event (events/lock.json), if there."""
    path = Path(res, "events", "lock.json")
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        for e in doc.get("records", []) if isinstance(doc, dict) else []:
            if isinstance(e, dict) and e.get("event") == "prereg_locked":
                return str(e.get("subject"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return None


def check_locked_prereg(locked: Locked, arm: str, blake3_now: str) -> None:
    """arm_locked: a prereg with another blake3 under a locked arm."""
    if locked.prereg_blake3 != blake3_now:
        raise AuditError(
            "arm_locked",
            locked.lock_path,
            f"arm {arm!r} is locked to the prereg with blake3 {locked.prereg_blake3}, and this"
            f" run's prereg has blake3 {blake3_now}; a changed method is a new arm: run it under"
            f" a new arm name (for an amendment, say arm: {arm}-amendment-1); {NEVER}",
        )


def check_locked_seat(locked: Locked, arm: str, prereg_path: str) -> None:
    """arm_locked: the lock read its prereg from another file (a second seat's run reads the
    first seat's annex, a first seat's its own prereg): another seat, or another file."""
    if locked.prereg_subject is not None and locked.prereg_subject != prereg_path:
        raise AuditError(
            "arm_locked",
            locked.lock_path,
            f"arm {arm!r} was locked from the prereg file {locked.prereg_subject!r} (blake3"
            f" {locked.prereg_blake3}), and this run reads {prereg_path!r}: a second seat, or"
            f" a prereg moved, is a new arm: run it under a new arm name; {NEVER}",
        )


def check_locked_bundle(
    locked: Locked,
    arm: str,
    roles: Mapping[str, tuple[str, Mapping[str, str] | None]],
    jobs: tuple[str, str] | None = None,
) -> None:
    """arm_locked: bundle content (by content digest) other than the lock's.

    ``roles``: role -> (the file this run would read, its declared CSV types). A
    file the lock hashed byte for byte is the locked content; another file's content
    digest names what differs. The same content in other bytes is refused too: every
    job reads the bytes the lock hashed (audit/seal/locked.py). A file not there yet
    (a bundle a rule builds) is left to the lock's own check. ``jobs``: a trials
    source's (jobs root, its folder), every file compared by blake3."""
    from audit.bundles.digest import table_digest  # polars: only for a file that differs

    for role, (path, types) in roles.items():
        if role not in locked.content or not Path(path).is_file():
            continue
        want_digest = locked.content[role]
        want_blake3 = locked.files.get(role, ("", ""))[1]
        now_blake3 = file_blake3(path)
        if now_blake3 == want_blake3:
            continue
        now_digest = str(table_digest(path, dict(types) if types else None)["content_digest"])
        if now_digest != want_digest:
            raise AuditError(
                "arm_locked",
                path,
                f"arm {arm!r} is locked to {role} content digest {want_digest} (blake3"
                f" {want_blake3}), and this run's {role} has content digest {now_digest} (blake3"
                f" {now_blake3}); {NEW_ARM} (say arm:"
                f" {arm}-2; README, 'Auditing another bundle'); {NEVER}",
            )
        raise AuditError(
            "arm_locked",
            path,
            f"arm {arm!r} locked the {role} file with blake3 {want_blake3}; this one holds the"
            f" same content (digest {now_digest}) in other bytes (blake3 {now_blake3}), and every"
            f" job reads the bytes the lock hashed: run with the locked file, or {NEW_ARM}; {NEVER}",
        )
    if jobs is not None and locked.jobs is not None:
        from audit.trials.lock import jobs_files

        _, folder = jobs
        root = Path(folder)
        now = tuple((rel, file_blake3(root / rel)) for rel in jobs_files(root))
        if now != locked.jobs:
            first = _first_difference(dict(locked.jobs), dict(now))
            raise AuditError(
                "arm_locked",
                folder,
                f"arm {arm!r} is locked to other jobs files ({first}); {NEW_ARM}; {NEVER}",
            )


def _first_difference(locked: Mapping[str, str], now: Mapping[str, str]) -> str:
    for rel in sorted(set(locked) | set(now)):
        a, b = locked.get(rel), now.get(rel)
        if a != b:
            return f"{rel}: locked blake3 {a or 'absent'}, now {b or 'absent'}"
    return "the same files in another order"


def check_locked_arm(
    res: str | Path,
    arm: str,
    prereg_path: str,
    blake3_now: str,
    roles: Mapping[str, tuple[str, Mapping[str, str] | None]] | None = None,
    jobs: tuple[str, str] | None = None,
) -> Locked | None:
    """Every check of a locked arm, in order (prereg, seat, bundle); the lock, or None."""
    locked = read_lock(res)
    if locked is None:
        return None
    check_locked_prereg(locked, arm, blake3_now)
    check_locked_seat(locked, arm, prereg_path)
    if roles is not None:
        check_locked_bundle(locked, arm, roles, jobs)
    return locked


def sealed_head(res: str | Path) -> str | None:
    """The annex head when the arm's ledger ends with its seal, else None."""
    path = Path(res, "ledger.jsonl")
    if not path.is_file():
        return None
    try:
        lines = path.read_bytes().splitlines()
        last = json.loads(lines[-1]) if lines else {}
    except (OSError, ValueError, IndexError):
        return None
    if isinstance(last, dict) and last.get("event") == "annex_sealed":
        return str(last.get("hash"))
    return None


@dataclass(frozen=True)
class Planned:
    """A job Snakemake means to run: its rule, its outputs and why it runs."""

    rule: str
    outputs: tuple[str, ...]
    reasons: frozenset[str]


INCOMPLETE = "incomplete output files"  # Snakemake's reason for a job a killed run left
UPSTREAM = "input files updated by another job"  # a job that runs because another does
MISSING = "output files have to be generated"


def check_planned(
    res: str | Path, arm: str, locked: Locked | None, head: str | None, jobs: Iterable[Planned]
) -> None:
    """arm_locked / arm_sealed: jobs that would rewrite a locked or sealed arm.

    Called once the DAG is built, before its first job. A locked arm's lock runs
    again only to finish itself (a killed lock); a sealed arm runs nothing that
    writes under results/<arm>/ but a job a killed run left incomplete. Anything
    else (changed code, moved or touched inputs, a deleted file) would give the
    arm another head, so the run is refused and nothing is touched."""
    prefix = f"{Path(res).as_posix()}/"
    rewrites = []
    for job in jobs:
        if INCOMPLETE in job.reasons and job.reasons <= {INCOMPLETE, MISSING, UPSTREAM}:
            continue  # a job a killed run started: finished by the same command
        why = "; ".join(sorted(job.reasons)) or "asked for"
        if locked is not None and job.rule == "lock":
            raise AuditError(
                "arm_locked",
                locked.lock_path,
                f"arm {arm!r} is locked, and this run would lock it again ({why}); run the"
                f" command that locked it, or {NEW_ARM}; {NEVER}",
            )
        if head is not None and any(o.startswith(prefix) for o in job.outputs):
            rewrites.append((job, why))
    if rewrites:
        # the job that starts it (not one that runs because another did), named first
        first = min(rewrites, key=lambda jw: (jw[0].reasons <= {UPSTREAM}, jw[0].rule))
        rules = sorted({j.rule for j, _ in rewrites})
        raise AuditError(
            "arm_sealed",
            f"{prefix}ledger.jsonl",
            f"arm {arm!r} is sealed (annex head {head}), and this run would run"
            f" {first[0].rule} again ({first[1]}) and after it {len(rewrites) - 1} more job(s)"
            f" ({', '.join(rules)}), giving the arm another head; a sealed arm is never"
            f" rewritten: restore the file from its annex (with its time), or {NEW_ARM}",
        )
