"""A key named twice in a JSON object the seal reads is refused: the ledger's lines (also
tests/conformance/ledger_duplicate_key_fail), the signed statement, the manifest and the
key file (tests/test_seal.py: listed twice), the events the seal chains. Python keeps the
last of two values and other readers the first; a document that means two things is not
checked as one of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from securesystemslib.dsse import Envelope

from audit.errors import AuditError
from audit.seal import attest, ledger


def test_a_ledger_line_naming_a_key_twice_is_a_problem() -> None:
    rec = {"event": "prereg_locked", "subject": "p.yaml", "blake3": "a" * 64, "time": "t"}
    true = ledger.chain([rec])
    line = ledger.text(true).strip()
    forged = '{"blake3":"' + "0" * 64 + '",' + line[1:]
    assert json.loads(forged) == json.loads(line)  # the last value wins: the hash holds
    (problem,) = ledger.parse(forged, "ledger.jsonl")
    assert problem == (ledger.DUPLICATE_KEY, "ledger.jsonl:1: names key 'blake3' twice")


def test_a_signed_statement_naming_a_key_twice_is_refused() -> None:
    signer = attest.CryptoSigner.generate_ed25519()
    stmt = attest.statement(
        {}, {"sha256": "0" * 64}, "WARNED", {"passed": [], "warned": [], "failed": []}
    )
    text = json.dumps(stmt, sort_keys=True, separators=(",", ":"))
    # a reader keeping the first "result" reads PASSED; json.loads keeps the signed WARNED
    payload = text.replace('"result":"WARNED"', '"result":"PASSED","result":"WARNED"')
    assert payload != text
    env = Envelope(payload.encode("utf-8"), attest.PAYLOAD_TYPE, {})
    env.sign(signer)
    with pytest.raises(AuditError) as err:
        attest.open_envelope(env.to_dict(), signer.public_key, "attestation.dsse.json")
    assert err.value.kind == "bad_attestation"
    assert "names key 'result' twice" in err.value.detail


def test_an_event_file_naming_a_key_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lock.json"
    path.write_text(
        '{"format":"' + ledger.EVENTS_FORMAT + '","records":[],"records":[]}', encoding="utf-8"
    )
    with pytest.raises(AuditError) as err:
        ledger.read_events(path)
    assert err.value.kind == "bad_events" and "names key 'records' twice" in err.value.detail
