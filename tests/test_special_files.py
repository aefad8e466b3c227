"""A special file where a regular file is expected is refused at once, never read: a FIFO
named as the seat's key (config ``seat_key``) would block the seal forever waiting for a
writer; an oversized key file is not a key."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

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


# Every place the referee opens a file it is given goes through audit.files.open_regular
# (or require_regular before a path is handed on): a FIFO, a device, a socket or a folder
# where a file is expected is refused at once with one classed line naming it, never
# opened for a blocking read. Each call runs in a thread so a reader that blocks fails the
# test instead of hanging it.


def _special(kind: str, path: Path) -> Path:
    import socket

    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "device":
        path.symlink_to("/dev/zero")  # followed: a character device that never ends
    else:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(path))
        _SOCKETS.append(s)
    return path


_SOCKETS: list = []
_WORDS = {"fifo": "FIFO", "folder": "folder", "device": "device", "socket": "socket"}


def _refused_at_once(call, *args) -> AuditError:
    got: dict[str, object] = {}

    def run() -> None:
        try:
            got["value"] = call(*args)
        except AuditError as e:
            got["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), f"{call.__qualname__} blocked on a special file"
    err = got.get("error")
    assert isinstance(err, AuditError), got
    assert err.status == 2 and "\n" not in str(err)
    return err


def _readers():
    from audit import preflight
    from audit.bundles.digest import read_table
    from audit.core import strict_yaml
    from audit.files import file_blake3, file_digests
    from audit.seal import timestamp

    def bundle(path: Path) -> None:
        preflight.check_bundle(str(path.parent), [path.name], None)

    return {
        "prereg (strict YAML)": strict_yaml.read_strict,
        "prereg (preflight)": lambda p: preflight.check_prereg(str(p), "0" * 64),
        "bundle file (preflight)": bundle,
        "bundle table (the lock)": read_table,
        "file hash": file_blake3,
        "file digests": file_digests,
        "tsa_cert": lambda p: timestamp.load_trusted(str(p)),
    }


@pytest.mark.parametrize("kind", ["fifo", "folder", "device", "socket"])
@pytest.mark.parametrize("reader", list(_readers()))
def test_a_special_file_is_refused_by_every_input_reader(tmp_path: Path, kind, reader) -> None:
    path = _special(kind, tmp_path / "input.x")
    err = _refused_at_once(_readers()[reader], path)
    assert "not a regular file" in err.detail and _WORDS[kind] in err.detail, err
    assert err.kind == "missing_file", err
