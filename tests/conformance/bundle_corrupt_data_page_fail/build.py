"""Builds the bundle_corrupt_data_page_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    data = bytearray(ws.instances_file.read_bytes())
    for i in range(40, 80):  # the first column chunk's page, after its header
        data[i] ^= 0xFF
    ws.instances_file.write_bytes(bytes(data))
