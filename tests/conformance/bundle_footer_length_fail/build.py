"""Builds the bundle_footer_length_fail case from the demo bundle."""

from __future__ import annotations

import struct


def build(ws) -> None:
    data = bytearray(ws.instances_file.read_bytes())
    data[-8:-4] = struct.pack("<I", len(data) * 10)
    ws.instances_file.write_bytes(bytes(data))
