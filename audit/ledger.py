"""The append-only, hash-chained ledger (results/<arm>/ledger.jsonl).

Each line is a JSON object with sorted keys: ``seq``, ``time`` (UTC), ``event``,
``subject`` (a path relative to the working directory), ``blake3`` (of the
subject), optional extra fields, ``prev`` (the previous line's ``hash``, 64
zeros for the first) and ``hash``: the blake3 of the line's canonical JSON
without ``hash``.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from audit.files import file_blake3, text_blake3

EVENTS = (
    "prereg_locked",
    "bundle_hashed",
    "bundle_fetched",
    "prediction_stamped",
    "output_recorded",
    "annex_sealed",
    "amendment",
)
GENESIS = "0" * 64


def canonical(obj: dict[str, object]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def line_hash(entry: dict[str, object]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return text_blake3(canonical(body))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def make_entry(
    seq: int, prev: str, event: str, subject: str, extra: dict[str, object] | None = None
) -> dict[str, object]:
    if event not in EVENTS:
        raise ValueError(f"unknown ledger event {event!r}")
    entry: dict[str, object] = {
        "seq": seq,
        "time": _now(),
        "event": event,
        "subject": subject,
        "blake3": file_blake3(subject),
        "prev": prev,
    }
    entry.update(extra or {})
    entry["hash"] = line_hash(entry)
    return entry


def start(path: str | Path, records: list[tuple[str, str, dict[str, object]]]) -> list[dict]:
    """Write a new ledger holding ``records`` (event, subject, extra), atomically."""
    entries: list[dict] = []
    prev = GENESIS
    for seq, (event, subject, extra) in enumerate(records, start=1):
        entry = make_entry(seq, prev, event, subject, extra)
        entries.append(entry)
        prev = str(entry["hash"])
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    tmp.write_text("".join(canonical(e) + "\n" for e in entries), encoding="utf-8")
    os.replace(tmp, p)
    return entries


def append(
    path: str | Path, event: str, subject: str, extra: dict[str, object] | None = None
) -> dict:
    """Append one entry under an exclusive lock, chained to the current last line."""
    with open(path, "r+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = [ln for ln in f.read().splitlines() if ln.strip()]
        last = json.loads(lines[-1]) if lines else None
        seq = int(last["seq"]) + 1 if last else 1
        prev = str(last["hash"]) if last else GENESIS
        entry = make_entry(seq, prev, event, subject, extra)
        f.seek(0, os.SEEK_END)
        f.write(canonical(entry) + "\n")
        f.flush()
        os.fsync(f.fileno())
    return entry


def head(path: str | Path) -> str:
    lines = [ln for ln in Path(path).read_text(encoding="utf-8").splitlines() if ln.strip()]
    return str(json.loads(lines[-1])["hash"]) if lines else GENESIS


# Classes of a broken ledger, as `verify-ledger` reports the first problem found.
LINE_NOT_JSON = "ledger_line_not_json"  # a line cut short or overwritten
OUT_OF_SEQUENCE = "ledger_out_of_sequence"  # a line deleted, inserted or moved
CHAIN_BROKEN = "ledger_chain_broken"  # prev is not the previous line's hash
LINE_EDITED = "ledger_line_edited"  # the line's content does not hash to its hash
SUBJECT_MISSING = "subject_missing"
SUBJECT_CHANGED = "subject_changed"
HEAD_MISMATCH = "ledger_head_mismatch"  # tail cut or extended against an anchored head


def check(
    path: str | Path, expected_head: str | None = None, rehash: bool = True
) -> list[tuple[str, str]]:
    """Walk the chain; return (class, message) per problem, in line order (empty: it holds).

    A ledger that cannot be read at all is (``missing_file`` or ``unreadable``, message)."""
    problems: list[tuple[str, str]] = []
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        kind = "missing_file" if not p.is_file() else "unreadable"
        return [(kind, f"{path}: cannot read ({getattr(e, 'strerror', None) or e})")]
    prev = GENESIS
    for n, text in enumerate(raw, start=1):
        where = f"{path}:{n}"
        try:
            entry = json.loads(text)
        except json.JSONDecodeError:
            problems.append((LINE_NOT_JSON, f"{where}: not a JSON line"))
            prev = "?"
            continue
        if not isinstance(entry, dict):
            problems.append((LINE_NOT_JSON, f"{where}: not a JSON object"))
            prev = "?"
            continue
        if entry.get("seq") != n:
            problems.append(
                (
                    OUT_OF_SEQUENCE,
                    f"{where}: seq is {entry.get('seq')!r}, expected {n} (line deleted or moved)",
                )
            )
        if entry.get("prev") != prev and prev != "?":
            problems.append(
                (CHAIN_BROKEN, f"{where}: prev does not match the hash of line {n - 1}")
            )
        if line_hash(entry) != entry.get("hash"):
            problems.append(
                (LINE_EDITED, f"{where}: hash does not match the line's content (line edited)")
            )
        if rehash and "subject" in entry:
            subject = str(entry["subject"])
            if not Path(subject).is_file():
                problems.append((SUBJECT_MISSING, f"{where}: subject {subject} is missing"))
            elif file_blake3(subject) != entry.get("blake3"):
                problems.append(
                    (SUBJECT_CHANGED, f"{where}: subject {subject} changed since it was recorded")
                )
        prev = str(entry.get("hash"))
    if expected_head is not None and prev != expected_head:
        problems.append(
            (
                HEAD_MISMATCH,
                f"{path}: last line's hash is {prev}, the anchored head is {expected_head}"
                " (tail cut or extended)",
            )
        )
    return problems


def verify(path: str | Path, expected_head: str | None = None, rehash: bool = True) -> list[str]:
    """Walk the chain; return one message per problem (empty when it holds)."""
    return [message for _, message in check(path, expected_head, rehash)]
