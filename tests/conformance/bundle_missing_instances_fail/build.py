"""Builds the bundle_missing_instances_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.instances_file.unlink()
