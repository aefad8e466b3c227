"""The annex in standard form: an in-toto Statement v1 in a DSSE envelope, signed by the seat.

The predicate is in-toto Test Result v0.1 (https://in-toto.io/attestation/test-result/v0.1):
an audit is one invocation of a preregistered suite of tests against the bundle.
``configuration`` is the locked prereg (the policy the tests ran under),
``passedTests`` / ``warnedTests`` / ``failedTests`` name each measured cell, each
control and each machinery check (names in docs/seal.md). DSSE signing and
verification are securesystemslib's (``securesystemslib.dsse.Envelope``,
``CryptoSigner`` with an ed25519 key); nothing here is hand-rolled cryptography.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.errors import AuditError
from audit.files import DuplicateKey, file_digests, json_loads, read_regular

# securesystemslib.signer imports every signer it has, its AWS KMS signer among them,
# which imports boto3 when it is installed (the intake group's inspect-ai brings it
# into the referee's environment): 0.15 to 0.3 s of every seal and verify, on the
# run's last job, for a signer they never use (a local ed25519 key, CryptoSigner).
# A sys.modules entry of None makes Python's import refuse that module
# (ModuleNotFoundError), which securesystemslib takes as the optional dependency
# absent (its awskms extra); the entries go after, so a later `import boto3` in the
# same process imports it as usual, and one already imported is left alone.
_NOT_NEEDED = [m for m in ("boto3", "botocore") if m not in sys.modules]
sys.modules.update(dict.fromkeys(_NOT_NEEDED))
try:
    from securesystemslib.dsse import Envelope
    from securesystemslib.exceptions import Error as SslibError
    from securesystemslib.exceptions import VerificationError
    from securesystemslib.signer import CryptoSigner, Signer, SSlibKey
finally:
    for _m in _NOT_NEEDED:
        if _m in sys.modules and sys.modules[_m] is None:
            del sys.modules[_m]


STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
KEY_ENV = "SECONDSEAT_KEY"
MAX_KEY_FILE = 64 << 10  # an ed25519 PEM is about 120 bytes


def default_key_path() -> Path:
    """Where a seat's key lives unless configured: outside any repository."""
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "secondseat" / "seat-ed25519.pem"


def load_or_create_signer(path: str | Path | None) -> tuple[CryptoSigner, bool]:
    """The seat's signer; a new ed25519 key is generated on first use (mode 0600)."""
    p = Path(path) if path else default_key_path()
    created = False
    if not p.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
        signer = CryptoSigner.generate_ed25519()
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another job made it first: use that one
        else:
            with os.fdopen(fd, "wb") as f:
                f.write(signer.private_bytes)
            created = True
    pem = read_regular(p, MAX_KEY_FILE, "bad_key")  # never a FIFO: the seal must not hang
    try:
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        return CryptoSigner(load_pem_private_key(pem, None)), created
    except (ValueError, TypeError) as e:
        raise AuditError("bad_key", str(p), f"not an unencrypted PEM private key ({e})") from None


def public_key_doc(signer: Signer) -> dict[str, Any]:
    key = signer.public_key
    return {"keyid": key.keyid, "key": key.to_dict()}


def load_public_key(doc: object, where: str) -> SSlibKey:
    """The ed25519 key a public key document holds, once its key id is the id of that key
    material: the id is derived from the key (securesystemslib's default key id, through
    ``SSlibKey.from_crypto``), never taken from the document, so no key file can show or
    claim another key's id."""
    refuse = AuditError("bad_key", where, "not an ed25519 public key document")
    if not isinstance(doc, dict) or set(doc) != {"keyid", "key"}:
        raise refuse
    if not isinstance(doc["keyid"], str) or not isinstance(doc["key"], dict):
        raise refuse
    try:
        key = SSlibKey.from_dict(doc["keyid"], dict(doc["key"]))
        public = bytes.fromhex(str(key.keyval["public"]))
        derived = SSlibKey.from_crypto(Ed25519PublicKey.from_public_bytes(public))
    except (KeyError, TypeError, ValueError, AttributeError, SslibError):  # malformed
        raise refuse from None
    if key.keytype != "ed25519" or key.to_dict() != derived.to_dict():
        raise refuse
    if key.keyid != derived.keyid:
        raise AuditError(
            "bad_key",
            where,
            f"claims key id {key.keyid[:80]}, but its key material's id is {derived.keyid}",
        )
    return derived


def digests(path: Path) -> dict[str, str]:
    """A subject's digests as the statement and the manifest name them."""
    d = file_digests(path)
    return {"blake3": str(d["blake3"]), "sha256": str(d["sha256"])}


def statement(
    subjects: dict[str, dict[str, str]],
    prereg_digest: dict[str, str],
    result: str,
    tests: dict[str, list[str]],
) -> dict[str, Any]:
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": n, "digest": d} for n, d in sorted(subjects.items())],
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "result": result,
            "configuration": [{"name": "lock/prereg.yaml", "digest": prereg_digest}],
            "passedTests": tests["passed"],
            "warnedTests": tests["warned"],
            "failedTests": tests["failed"],
        },
    }


def sign(stmt: dict[str, Any], signer: Signer) -> dict[str, Any]:
    payload = json.dumps(stmt, sort_keys=True, separators=(",", ":")).encode("utf-8")
    env = Envelope(payload, PAYLOAD_TYPE, {})
    env.sign(signer)
    return env.to_dict()


def open_envelope(doc: object, key: SSlibKey, where: str) -> dict[str, Any]:
    """The statement inside a DSSE envelope, once its signature verifies under ``key``."""
    try:
        env = Envelope.from_dict(doc)  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError, AttributeError, SslibError):
        raise AuditError("bad_attestation", where, "not a DSSE envelope") from None
    if env.payload_type != PAYLOAD_TYPE:
        raise AuditError("bad_attestation", where, f"payloadType is {env.payload_type!r}")
    try:
        env.verify([key], 1)
    except (VerificationError, ValueError):
        raise AuditError(
            "bad_signature", where, f"no valid signature by key {key.keyid}", 1
        ) from None
    try:
        stmt = json_loads(env.payload.decode("utf-8"))
    except DuplicateKey as e:
        raise AuditError(
            "bad_attestation", where, f"the statement names key {e.args[0]!r} twice"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise AuditError("bad_attestation", where, "payload is not JSON") from None
    if (
        not isinstance(stmt, dict)
        or stmt.get("_type") != STATEMENT_TYPE
        or stmt.get("predicateType") != PREDICATE_TYPE
        or not isinstance(stmt.get("subject"), list)
    ):
        raise AuditError("bad_attestation", where, "not an in-toto Statement v1 of test results")
    return stmt


def subjects_of(stmt: dict[str, Any]) -> dict[str, object]:
    out: dict[str, object] = {}
    for s in stmt["subject"]:
        if isinstance(s, dict) and isinstance(s.get("name"), str):
            out[s["name"]] = s.get("digest")
    return out
