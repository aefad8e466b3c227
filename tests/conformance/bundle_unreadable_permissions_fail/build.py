"""Builds the bundle_unreadable_permissions_fail case from the demo bundle."""

from __future__ import annotations


def build(ws) -> None:
    ws.instances_file.chmod(0)
