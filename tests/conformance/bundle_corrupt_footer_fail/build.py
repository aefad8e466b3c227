"""Builds the bundle_corrupt_footer_fail case from the demo bundle."""

from __future__ import annotations

import struct


def build(ws) -> None:
    data = bytearray(ws.instances_file.read_bytes())
    size = struct.unpack("<I", data[-8:-4])[0]
    start = len(data) - 8 - size + size // 3
    data[start : start + 16] = b"\xff" * 16
    ws.instances_file.write_bytes(bytes(data))
