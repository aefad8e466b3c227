"""Builds the config_bundle_path_wildcard_fail case from the demo bundle."""

from __future__ import annotations

import shutil


def build(ws) -> None:
    # The folder exists and holds the bundle, so only its name can stop the run.
    name = "bundle {x} $(touch X)"
    shutil.copytree(ws.bundle, ws.dir / name)
    ws.config["bundle"] = name
