"""Builds the bundle_directory_not_file_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.instances_file.unlink()
    ws.instances_file.mkdir()
    (ws.instances_file / "part-0.parquet").write_bytes(b"PAR1")
