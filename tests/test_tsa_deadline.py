"""A time-stamp authority answering slowly (docs/seal.md): the whole exchange with the
TSA has one deadline, so an authority that trickles its answer a byte at a time, each
byte inside the socket's per-read timeout, is tsa_unavailable when the deadline passes,
never an endless seal. On the old code the timeout bound each read, not the exchange:
a reply trickled within it kept the stamp (and the run) waiting for up to 1 MiB x the
timeout."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from audit.errors import AuditError
from audit.seal import timestamp


def _trickler() -> tuple[socket.socket, threading.Event]:
    """A loopback server that answers every connection with an HTTP header line, a byte
    every 0.1 s (well inside a 1 s read timeout), until told to stop."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                for b in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000:
                    if stop.is_set():
                        return
                    try:
                        conn.sendall(bytes([b]))
                    except OSError:
                        break
                    time.sleep(0.1)

    threading.Thread(target=serve, daemon=True).start()
    return server, stop


def test_a_tsa_trickling_its_answer_is_unavailable_at_the_deadline() -> None:
    server, stop = _trickler()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/"
    done: dict[str, object] = {}

    def ask() -> None:
        began = time.monotonic()
        try:
            timestamp.request_stamp(url, "a" * 64, [], timeout=1.0)
        except AuditError as e:
            done["error"] = e
        done["took"] = time.monotonic() - began

    t = threading.Thread(target=ask, daemon=True)
    t.start()
    t.join(15)  # the deadline is 1 s; 15 s is the old code still reading
    stop.set()
    server.close()
    if t.is_alive():
        pytest.fail("the stamp request was still waiting on a trickling TSA after 15 s")
    e = done["error"]
    assert isinstance(e, AuditError) and e.kind == "tsa_unavailable"
    assert e.path == url and "within 1 s" in e.detail
    assert done["took"] < 5
