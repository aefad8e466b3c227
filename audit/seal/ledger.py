"""The hash-chained ledger (results/<arm>/ledger.jsonl) and the event files it is built from.

While the DAG runs, each job that records something writes its own event file
(``results/<arm>/events/<name>.json``, or ``controls/<control>/stamp.json``):
the lock writes ``lock.json`` (prereg locked, bundle hashed), the predictions
each control's stamp before any perturbed bundle may be built, the perturbation
``perturb-<control>.json`` for each control, and the recording of outputs
``outputs.json``. An event file is an output of its job
and is never appended to, so a second run of a complete run has nothing to do
(docs/seal.md). The seal chains every event, in the DAG's order, into the ledger
and ends it with ``annex_sealed``.

Each ledger line is a JSON object with sorted keys: ``seq``, ``time`` (UTC, when
the event happened), ``event``, ``subject`` (a path relative to the working
directory), ``blake3`` (of the subject), optional extra fields, ``prev`` (the
previous line's ``hash``, 64 zeros for the first) and ``hash``: the blake3 of
the line's canonical JSON without ``hash``.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from audit.errors import AuditError
from audit.files import DuplicateKey, file_blake3, json_loads, text_blake3, write_atomic

EVENTS = (
    "prereg_locked",
    "bundle_hashed",
    "bundle_fetched",
    "prediction_stamped",
    "bundle_perturbed",
    "output_recorded",
    "annex_sealed",
    "amendment",
)
GENESIS = "0" * 64
EVENTS_FORMAT = "secondseat-events-v1"


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def line_hash(entry: dict[str, object]) -> str:
    body = {k: v for k, v in entry.items() if k != "hash"}
    return text_blake3(canonical(body))


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def amends_of(doc: Any) -> dict[str, str] | None:
    """A prereg's ``amends`` block (already schema-checked), or None: the parent arm and
    head an amendment's ledger begins by naming (its ``amendment`` line, docs/seal.md)."""
    block = doc.get("amends") if isinstance(doc, dict) else None
    return dict(block) if isinstance(block, dict) else None


# --- event files (written by the jobs) ------------------------------------------------


def record(event: str, subject: str, extra: dict[str, object] | None = None) -> dict:
    """One event as it happens: what, which file, its blake3 now, when."""
    if event not in EVENTS:
        raise ValueError(f"unknown ledger event {event!r}")
    rec: dict[str, object] = {
        "event": event,
        "subject": subject,
        "blake3": file_blake3(subject),
        "time": now(),
    }
    rec.update(extra or {})
    return rec


def write_events(path: str | Path, records: list[dict]) -> None:
    """Write one job's events, atomically (the file is that job's output)."""
    body = {"format": EVENTS_FORMAT, "records": records}
    write_atomic(path, json.dumps(body, indent=1, sort_keys=True) + "\n")


def read_events(path: str | Path) -> list[dict]:
    try:
        doc = json_loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AuditError("missing_file", str(path), "no such event file") from None
    except DuplicateKey as e:
        raise AuditError("bad_events", str(path), f"names key {e.args[0]!r} twice") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise AuditError("unreadable", str(path), f"not an event file ({e})") from None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != EVENTS_FORMAT
        or not isinstance(doc.get("records"), list)
        or not all(isinstance(r, dict) and r.get("event") in EVENTS for r in doc["records"])
    ):
        raise AuditError("unreadable", str(path), f"not a {EVENTS_FORMAT} file")
    return doc["records"]


def check_subjects(records: list[dict], where: str) -> None:
    """Every subject still has the bytes its event recorded (changed_after_record)."""
    for r in records:
        subject = str(r["subject"])
        now = file_blake3(subject)
        if now != r.get("blake3"):
            raise AuditError(
                "changed_after_record",
                subject,
                f"blake3 is {now} but {where} recorded {r.get('blake3')} at {r.get('time')}",
            )


# --- the chain ---------------------------------------------------------------------


def chain(records: list[dict], prev: str = GENESIS, seq: int = 1) -> list[dict]:
    """Ledger lines for ``records``, in order, chained after ``prev``."""
    entries = []
    for rec in records:
        entry = {k: v for k, v in rec.items() if k not in ("seq", "prev", "hash")}
        entry["seq"] = seq
        entry["prev"] = prev
        entry["hash"] = line_hash(entry)
        entries.append(entry)
        prev, seq = str(entry["hash"]), seq + 1
    return entries


def text(entries: list[dict]) -> str:
    return "".join(canonical(e) + "\n" for e in entries)


def start(path: str | Path, records: list[tuple[str, str, dict[str, object]]]) -> list[dict]:
    """Write a new ledger holding ``records`` (event, subject, extra), atomically."""
    entries = chain([record(event, subject, extra) for event, subject, extra in records])
    write_atomic(path, text(entries))
    return entries


def append(
    path: str | Path, event: str, subject: str, extra: dict[str, object] | None = None
) -> dict:
    """Append one entry under an exclusive lock, chained to the current last line.

    For ledgers kept by hand or by tests; the workflow writes event files."""
    with open(path, "r+", encoding="utf-8") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = [ln for ln in f.read().splitlines() if ln.strip()]
        last = json.loads(lines[-1]) if lines else None
        seq = int(last["seq"]) + 1 if last else 1
        prev = str(last["hash"]) if last else GENESIS
        (entry,) = chain([record(event, subject, extra)], prev, seq)
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
DUPLICATE_KEY = "ledger_duplicate_key"  # a line naming a key twice: which value is meant?
OUT_OF_SEQUENCE = "ledger_out_of_sequence"  # a line deleted, inserted or moved
CHAIN_BROKEN = "ledger_chain_broken"  # prev is not the previous line's hash
LINE_EDITED = "ledger_line_edited"  # the line's content does not hash to its hash
SUBJECT_MISSING = "subject_missing"
SUBJECT_CHANGED = "subject_changed"
HEAD_MISMATCH = "ledger_head_mismatch"  # tail cut or extended against an anchored head
MAX_LINE = 1 << 20  # a ledger line is a few hundred bytes; a longer one is not ours


def parse(raw: bytes | str, where: str) -> list[dict | tuple[str, str]]:
    """Lines of a ledger: each a JSON object, or (class, message) where it is not one.

    Bytes that are not UTF-8 are one ``unreadable`` problem for the whole file."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise AuditError("unreadable", where, f"not UTF-8 (byte {e.start})") from None
    out: list[dict | tuple[str, str]] = []
    for n, line in enumerate(raw.splitlines(), start=1):
        if len(line) > MAX_LINE:
            out.append((LINE_NOT_JSON, f"{where}:{n}: line of {len(line)} characters"))
            continue
        try:
            entry = json_loads(line)
        except DuplicateKey as e:
            out.append((DUPLICATE_KEY, f"{where}:{n}: names key {e.args[0]!r} twice"))
            continue
        except (json.JSONDecodeError, RecursionError):
            out.append((LINE_NOT_JSON, f"{where}:{n}: not a JSON line"))
            continue
        if not isinstance(entry, dict):
            out.append((LINE_NOT_JSON, f"{where}:{n}: not a JSON object"))
            continue
        out.append(entry)
    return out


MAX_LEDGER = 256 << 20  # a ledger is read whole: past this bound it is too_large, unread


def read_raw(path: str | Path) -> bytes:
    """A ledger's bytes: missing_file, unreadable, or too_large past MAX_LEDGER (a FIFO,
    folder or device is refused as not a regular file, never waited on)."""
    from audit.files import read_regular

    if not Path(path).exists():
        raise AuditError("missing_file", str(path), "cannot read (no such file)")
    return read_regular(path, MAX_LEDGER, "too_large")


def check(
    path: str | Path, expected_head: str | None = None, rehash: bool = True
) -> list[tuple[str, str]]:
    """Walk the chain; return (class, message) per problem, in line order (empty: it holds).

    A ledger that cannot be read at all is (``missing_file`` or ``unreadable``, message)."""
    try:
        raw = read_raw(path)
    except AuditError as e:
        return [(e.kind, f"{path}: {e.detail}")]
    try:
        entries = parse(raw, str(path))
    except AuditError as e:
        return [(e.kind, f"{path}: {e.detail}")]
    problems: list[tuple[str, str]] = []
    prev = GENESIS
    for n, entry in enumerate(entries, start=1):
        where = f"{path}:{n}"
        if not isinstance(entry, dict):
            problems.append(entry)
            prev = "?"
            continue
        if entry.get("seq") != n or isinstance(entry.get("seq"), bool):
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
            problems += _subject(where, entry)
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


def _subject(where: str, entry: dict) -> list[tuple[str, str]]:
    subject = entry["subject"]
    if not isinstance(subject, str) or not subject or "\0" in subject:
        return [(SUBJECT_MISSING, f"{where}: subject {subject!r} is not a file name")]
    if not Path(subject).is_file():
        return [(SUBJECT_MISSING, f"{where}: subject {subject} is missing")]
    try:
        now = file_blake3(subject)
    except AuditError as e:
        return [(SUBJECT_MISSING, f"{where}: subject {subject}: {e.detail}")]
    if now != entry.get("blake3"):
        return [(SUBJECT_CHANGED, f"{where}: subject {subject} changed since it was recorded")]
    return []


def verify(path: str | Path, expected_head: str | None = None, rehash: bool = True) -> list[str]:
    """Walk the chain; return one message per problem (empty when it holds)."""
    return [message for _, message in check(path, expected_head, rehash)]
