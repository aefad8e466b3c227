"""A special file where a regular file is expected is refused at once, never read: a FIFO
named as the seat's key (config ``seat_key``) would block the seal forever waiting for a
writer; an oversized key file is not a key."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from audit.errors import AuditError
from audit.seal import attest


def test_a_seat_key_naming_a_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "seat.pem"
    os.mkfifo(fifo)
    got: dict[str, object] = {}

    def load() -> None:
        try:
            got["signer"] = attest.load_or_create_signer(fifo)
        except AuditError as e:
            got["error"] = e

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(20)
    hung = t.is_alive()
    if hung:  # a writer unblocks the reader, so the test itself ends
        with open(fifo, "wb"):
            pass
        t.join(20)
    assert not hung, "the seat's key reader blocked on a FIFO"
    err = got["error"]
    assert isinstance(err, AuditError) and err.kind == "bad_key", got
    assert "not a regular file" in err.detail


def test_a_seat_key_past_the_bound_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "seat.pem"
    big.write_bytes(b"-" * (attest.MAX_KEY_FILE + 1))
    try:
        attest.load_or_create_signer(big)
    except AuditError as e:
        assert e.kind == "bad_key" and f"more than {attest.MAX_KEY_FILE}" in e.detail
    else:
        raise AssertionError("an oversized key file was read")
