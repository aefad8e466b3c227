"""Builds the bundle_wrong_magic_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    data = ws.instances_file.read_bytes()
    ws.instances_file.write_bytes(b"PAR0" + data[4:])
