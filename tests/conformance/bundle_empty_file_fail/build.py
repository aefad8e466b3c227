"""Builds the bundle_empty_file_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.instances_file.write_bytes(b"")
