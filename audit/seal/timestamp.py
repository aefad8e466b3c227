"""RFC 3161 time-stamps of the lock and of the seal (docs/seal.md, "Time-stamps").

The ledger proves an order only inside the seat: the seat wrote the whole chain.
A time-stamping authority (TSA) outside the seat signs, with its own clock, that
a hash existed at a time. Two hashes are stamped:

- **the lock**: the hash of the ledger line that closes the lock's events (the
  leading ``amendment``, ``prereg_locked``, ``bundle_hashed`` and
  ``bundle_fetched`` lines). It is known as soon as the lock has run: the seal
  chains ``events/lock.json`` first, from the genesis, so the line's hash is
  ``ledger.chain(lock records)[-1]["hash"]``. The rule ``timestamp_lock`` runs
  between the lock and every job that computes (workflow/rules/timestamp.smk)
  and writes ``lock/lock.tsr`` (the TSA's reply, DER) and ``lock/timestamp.json``
  (what was stamped, by whom, or why not); both are annex files, listed.
- **the seal**: the annex head, once the seal has computed it. The token,
  ``seal.tsr``, sits in the annex unlisted (the head cannot commit to a token
  over itself); verify checks it against the head.

The message sent is the hash's 64 hex characters as ASCII; the imprint is their
SHA-256, so ``openssl ts -verify -data <(printf %s HASH) -in lock.tsr -CAfile
tsa.pem`` checks a token as well. The protocol and the signature checks are
rfc3161-client's (the library sigstore uses); nothing here parses ASN.1.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from audit.errors import AuditError
from audit.files import open_regular, read_regular, write_atomic
from audit.seal import contract, ledger

FORMAT = "secondseat-timestamp-v1"
RECORD = "lock/timestamp.json"
LOCK_TOKEN = "lock/lock.tsr"
SEAL_TOKEN = contract.SEAL_TOKEN
# The events the lock writes: the ledger's leading lines, which the lock's token covers
LOCK_EVENTS = ("amendment", "prereg_locked", "bundle_hashed", "bundle_fetched")
TIMEOUT = 30.0  # seconds for one whole request to the TSA (connect, send, the answer)
MAX_REPLY = 1 << 20  # a time-stamp reply is a few kilobytes
MAX_PEM = 1 << 20
MAX_TOKEN = 1 << 20  # an RFC 3161 token is a few kilobytes
SHA256_OID = "2.16.840.1.101.3.4.2.1"
CLOCK_WORDS = "the order of lock and results rests on the seat's own clock"


@dataclass(frozen=True)
class Stamp:
    """A verified token: what it covers and when the TSA says it saw it."""

    message: str
    gen_time: datetime
    token: bytes


def utc(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the certificates a seat or a verifier trusts --------------------------------------


def load_trusted(pem_file: str, kind: str = "bad_tsa_cert"):
    """The CA or TSA certificates of a PEM file (a list of cryptography certificates)."""
    from cryptography import x509

    with open_regular(pem_file) as f:  # a FIFO or folder: refused at once, never waited on
        raw = f.read(MAX_PEM + 1)
    if len(raw) > MAX_PEM:
        raise AuditError(
            kind, pem_file, f"more than {MAX_PEM} bytes; too large for a PEM of certificates"
        )
    try:
        certs = x509.load_pem_x509_certificates(raw)
    except ValueError as e:
        raise AuditError(kind, pem_file, f"not a PEM file of certificates ({e})") from None
    return certs


def _verifier(certs, request=None):
    from rfc3161_client import VerifierBuilder

    builder = VerifierBuilder.from_request(request) if request is not None else VerifierBuilder()
    for cert in certs:
        if cert.issuer == cert.subject:
            builder = builder.add_root_certificate(cert)
        else:
            builder = builder.add_intermediate_certificate(cert)
    return builder.build()


def digest(message: str) -> bytes:
    return hashlib.sha256(message.encode("ascii")).digest()


def check_token(token: bytes, message: str, certs, where: str, request=None) -> Stamp:
    """The token's imprint is SHA-256 of ``message`` and (with ``certs``) its signature
    chains to them; AuditError(bad_timestamp, status 1) naming what does not hold."""
    from rfc3161_client import VerificationError, decode_timestamp_response

    def bad(detail: str) -> AuditError:
        return AuditError("bad_timestamp", where, detail, status=1)

    try:
        resp = decode_timestamp_response(token)
        info = resp.tst_info
        imprint = info.message_imprint
        algorithm, got, gen_time = (
            imprint.hash_algorithm.dotted_string,
            imprint.message,
            info.gen_time,
        )
    except (ValueError, TypeError) as e:
        raise bad(f"not an RFC 3161 time-stamp reply ({' '.join(str(e).split())})") from None
    if algorithm != SHA256_OID:
        raise bad(f"imprint hash algorithm {algorithm}, not SHA-256")
    if got != digest(message):
        raise bad(f"its imprint is not SHA-256 of {message} (a token for another hash)")
    if certs is not None:
        try:
            _verifier(certs, request).verify(resp, digest(message))
        except (VerificationError, ValueError) as e:
            why = " ".join(str(e).split())
            raise bad(
                f"its signature does not chain to the certificates you trust ({why})"
            ) from None
    if gen_time.tzinfo is None:
        gen_time = gen_time.replace(tzinfo=UTC)
    return Stamp(message, gen_time, token)


# --- asking the TSA ---------------------------------------------------------------------


def request_stamp(url: str, message: str, certs, timeout: float = TIMEOUT) -> Stamp:
    """Ask the TSA at ``url`` to stamp ``message``; its reply must verify against ``certs``
    (with the request's nonce). Anything else is AuditError(tsa_unavailable)."""
    import threading
    import urllib.error
    import urllib.request

    from rfc3161_client import HashAlgorithm, TimestampRequestBuilder

    if not url.startswith(("http://", "https://")):
        raise AuditError("bad_config", url, "tsa_url must be an http or https URL")
    req = (
        TimestampRequestBuilder()
        .data(message.encode("ascii"))
        .hash_algorithm(HashAlgorithm.SHA256)
        .nonce(nonce=True)
        .cert_request(cert_request=True)
        .build()
    )
    http = urllib.request.Request(
        url,
        data=req.as_bytes(),
        headers={"Content-Type": "application/timestamp-query"},
        method="POST",
    )
    # ``timeout`` bounds each socket read only: an authority trickling its answer a byte
    # at a time inside it would hold the stamp for MAX_REPLY reads. The whole exchange
    # runs in a daemon thread given ``timeout`` in all; one still waiting is abandoned.
    got: dict[str, object] = {}

    def exchange() -> None:
        try:
            with urllib.request.urlopen(http, timeout=timeout) as r:
                got["body"] = r.read(MAX_REPLY + 1)
        except Exception as e:  # noqa: BLE001 - handed to the caller's thread below
            got["error"] = e

    asking = threading.Thread(target=exchange, name="tsa-request", daemon=True)
    asking.start()
    asking.join(timeout)
    if asking.is_alive():
        raise AuditError("tsa_unavailable", url, f"no whole answer within {timeout:g} s")
    error = got.get("error")
    if isinstance(error, urllib.error.HTTPError):
        raise AuditError("tsa_unavailable", url, f"HTTP {error.code} {error.reason}")
    if isinstance(error, (urllib.error.URLError, OSError, ValueError)):
        reason = getattr(error, "reason", error)
        raise AuditError("tsa_unavailable", url, f"no answer ({reason})")
    if error is not None:
        raise error
    body = got["body"]
    assert isinstance(body, bytes)
    if len(body) > MAX_REPLY:
        raise AuditError("tsa_unavailable", url, f"a reply above {MAX_REPLY} bytes")
    try:
        return check_token(body, message, certs, url, req)
    except AuditError as e:
        raise AuditError("tsa_unavailable", url, f"a bad answer: {e.detail}") from None


def probe(url: str, cert_file: str, message: str) -> None:
    """Before any job: the TSA answers, with a token that verifies (stamping ``message``)."""
    request_stamp(url, message, load_trusted(cert_file, "bad_config"))


# --- the lock's stamp (rule timestamp_lock) ---------------------------------------------


def lock_message(records: list[dict]) -> str:
    """The hash the ledger's line closing the lock's events will have."""
    if not records or any(r.get("event") not in LOCK_EVENTS for r in records):
        raise AuditError("bad_events", "events/lock.json", "not the lock's events")
    return str(ledger.chain(records)[-1]["hash"])


def stamp_lock(
    events: str, out: str, token_out: str, url: str, cert_file: str, optional: bool
) -> dict:
    """Stamp the lock; write the token (if any) and then the record, the job's output."""
    records = ledger.read_events(events)
    message = lock_message(records)
    Path(token_out).unlink(missing_ok=True)
    rec: dict[str, object] = {
        "format": FORMAT,
        "tsa_url": url,
        "optional": optional,
        "message": message,
        "ledger_line": len(records),
    }
    try:
        stamp = request_stamp(url, message, load_trusted(cert_file, "bad_config"))
    except AuditError as e:
        if not optional or e.kind != "tsa_unavailable":
            raise
        rec.update(stamped=False, reason=e.detail)
    else:
        write_atomic(token_out, stamp.token)
        rec.update(stamped=True, gen_time=utc(stamp.gen_time))
    write_atomic(out, json.dumps(rec, indent=2, sort_keys=True) + "\n")
    return rec


def read_record(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError) as e:
        raise AuditError("bad_timestamp", str(path), f"not a time-stamp record ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise AuditError("bad_timestamp", str(path), f"not a {FORMAT} record")
    return doc


def line_of(res: Path) -> str:
    """The certificate's and report's one line on the lock's time-stamp; never raises."""
    try:
        rec = read_record(Path(res) / RECORD)
    except AuditError:
        rec = {"stamped": False, "tsa_url": "?"}
    if rec is None:
        text = f"not stamped: no time-stamping authority was configured, so {CLOCK_WORDS}"
    elif not rec.get("stamped"):
        text = (
            f"not stamped: the time-stamping authority {rec.get('tsa_url')} was unavailable"
            f" (why: {RECORD}), so {CLOCK_WORDS}"
        )
    else:
        text = (
            f"method locked no later than {rec.get('gen_time')} (RFC 3161 token {LOCK_TOKEN}"
            f" from {rec.get('tsa_url')}, over ledger line {rec.get('ledger_line')}); the annex"
            f" head is stamped after the seal ({SEAL_TOKEN}); verify --tsa-cert checks both"
        )
    return f"{contract.TSA_PREFIX}{text}."


URL = re.compile(r"https?://[^\x00-\x20\x7f{}`]+")
WHEN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
HEX64 = re.compile(r"[0-9a-f]{64}")


def volatile_line(annex: Path) -> str | None:
    """The one line line_of renders from the annex's own record, when that record is of
    the form stamp_lock writes (nothing free-form reaches the line); None otherwise, and
    then no line is volatile (audit/seal/volatile.py)."""
    path = Path(annex) / RECORD
    if not path.exists():
        return line_of(annex)
    try:
        if path.is_symlink() or path.stat().st_size > 1 << 16:
            return None
        rec = read_record(path)
    except (AuditError, OSError):
        return None
    ok = (
        rec is not None
        and isinstance(rec.get("tsa_url"), str)
        and URL.fullmatch(rec["tsa_url"]) is not None
        and rec.get("stamped") in (True, False)
        and (
            not rec["stamped"]
            or (
                isinstance(rec.get("gen_time"), str)
                and WHEN.fullmatch(rec["gen_time"]) is not None
                and type(rec.get("ledger_line")) is int
            )
        )
    )
    return line_of(annex) if ok else None


# --- verify ------------------------------------------------------------------------------


@dataclass
class Finding:
    problems: list[str]
    summary: str


def _lock_line(entries: list[dict]) -> tuple[int, str] | None:
    k = 0
    while k < len(entries) and entries[k].get("event") in LOCK_EVENTS:
        k += 1
    return (k, str(entries[k - 1].get("hash"))) if k else None


def check_annex(annex: Path, entries: list[dict], trusted_pem: str | None) -> Finding:
    """The annex's time-stamps: each imprint is the hash it claims, the seal's after the
    lock's, and (with ``trusted_pem``) each signature chains to those certificates."""
    certs = load_trusted(trusted_pem) if trusted_pem else None
    record_path, lock_path, seal_path = annex / RECORD, annex / LOCK_TOKEN, annex / SEAL_TOKEN
    rec = read_record(record_path)
    have_lock, have_seal = lock_path.is_file(), seal_path.is_file()
    problems: list[str] = []
    if rec is None and not have_lock and not have_seal:
        summary = f"not time-stamped: no time-stamping authority was configured, so {CLOCK_WORDS}"
        if certs is not None:
            problems.append(f"{annex}: no time-stamp to check with --tsa-cert ({summary})")
        return Finding(problems, summary)
    if rec is None:
        problems.append(f"{record_path}: missing, but the annex holds a token")
        return Finding(problems, "time-stamps unchecked")
    found = _lock_line(entries)
    lock = seal = None
    if rec.get("stamped"):
        if not have_lock:
            problems.append(f"{lock_path}: missing (the record says the lock was stamped)")
        elif found is None:
            problems.append(f"{annex / contract.LEDGER}: no lock lines for the lock's token")
        else:
            line, message = found
            if rec.get("message") != message or rec.get("ledger_line") != line:
                problems.append(
                    f"{record_path}: names ledger line {rec.get('ledger_line')}, hash"
                    f" {rec.get('message')}; the lock's last line is {line}, hash {message}"
                )
            try:
                lock = check_token(
                    read_regular(lock_path, MAX_TOKEN, "too_large"), message, certs, str(lock_path)
                )
            except AuditError as e:
                problems.append(f"{lock_path}: {e.detail}")
    elif have_lock:
        problems.append(f"{lock_path}: present, but the record says the lock was not stamped")
    if have_seal and entries:
        head = str(entries[-1].get("hash"))
        try:
            seal = check_token(
                read_regular(seal_path, MAX_TOKEN, "too_large"), head, certs, str(seal_path)
            )
        except AuditError as e:
            problems.append(f"{seal_path}: {e.detail}")
    elif not rec.get("optional"):
        problems.append(f"{seal_path}: missing (stamping was not optional for this arm)")
    if lock and seal and seal.gen_time < lock.gen_time:
        problems.append(
            f"{seal_path}: the seal's token ({utc(seal.gen_time)}) is older than the lock's"
            f" ({utc(lock.gen_time)})"
        )
    if not rec.get("stamped"):
        summary = f"the lock was not stamped ({rec.get('reason')}), so {CLOCK_WORDS}"
        if certs is not None:
            problems.append(f"{record_path}: the lock was not stamped ({rec.get('reason')})")
    elif lock is None:
        summary = "the lock's time-stamp does not hold"
    else:
        summary = f"method locked no later than {utc(lock.gen_time)}"
    if seal is not None and lock is not None:
        summary += (
            f"; annex sealed no earlier than {utc(lock.gen_time)} (it holds the lock's token)"
            f" and no later than {utc(seal.gen_time)}"
        )
    elif seal is not None:
        summary += f"; annex sealed no later than {utc(seal.gen_time)}"
    elif not have_seal:
        summary += "; the annex head was not stamped"
    if certs is None and (lock or seal):
        summary += " (imprints checked; signatures not checked: pass --tsa-cert)"
    return Finding(problems, summary)


def refused_stamp(logs: list[str], since: float) -> str | None:
    """The one line a stamp due in this run printed when the TSA failed it
    (``error[tsa_unavailable]: ...``), read from the logs of the jobs that stamp (the rule
    timestamp_lock, the seal) written since ``since`` (the run's start); None when no stamp
    of this run was refused. The workflow then ends on that line with exit 2, as the same
    refusal does before any job, not Snakemake's exit 1 for a failed job."""
    for log in logs:
        p = Path(log)
        try:
            if p.stat().st_mtime < since:
                continue  # a log an earlier run left
            with p.open("rb") as f:
                f.seek(max(0, p.stat().st_size - (64 << 10)))  # the log's end is enough
                tail = f.read().decode("utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in reversed(tail):
            if line.startswith("error[tsa_unavailable]: "):
                return line
    return None


def check_before_run(url: str, cert: str, optional: bool, stamp: str, prereg_blake3: str) -> None:
    """Before any job of a run that names a TSA: the trusted certificates read; while the
    lock is still to be stamped and the stamp is not optional, the TSA answers with a token
    that verifies (it stamps the prereg's blake3). Else AuditError (tsa_unavailable or
    bad_config), which the workflow prints as one line, exit 2."""
    load_trusted(cert, "bad_config")
    if not optional and not Path(stamp).is_file():
        probe(url, cert, prereg_blake3)
