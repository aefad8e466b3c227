"""Builds the prereg_missing_file_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.prereg.unlink()
