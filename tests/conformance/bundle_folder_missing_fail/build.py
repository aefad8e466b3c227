"""Builds the bundle_folder_missing_fail case from the demo bundle."""

from __future__ import annotations

import shutil


def build(ws) -> None:
    shutil.rmtree(ws.bundle)
