"""Builds the prereg_too_large_fail case from the demo bundle."""

from __future__ import annotations

from audit.files import file_blake3


def build(ws) -> None:
    data = ws.prereg.read_bytes()
    pad = 256 * 1024 + 1 - len(data) - 3
    ws.prereg.write_bytes(data + b"#" + b"x" * pad + b"\n\n")
    assert ws.prereg.stat().st_size == 256 * 1024 + 1
    # snakemake -n reads this prereg (its blake3 matching the config's): the workflow
    # refuses it while it is read, before any job
    ws.config["prereg"] = "prereg.yaml"
    ws.config["prereg_blake3"] = file_blake3(ws.prereg)
