"""environment.json: what the seat ran with (uv.lock's blake3; each environment's packages).

Read from each environment's own metadata (pyvenv.cfg and the installed
distributions' metadata, through importlib.metadata), without running it.
"""

from __future__ import annotations

import sys
from email.parser import HeaderParser
from importlib import metadata
from pathlib import Path

from audit.files import file_blake3

ENVIRONMENTS = {
    "referee": None,  # the environment this process runs in
    "impl-pandas": ".venvs/impl-pandas",
    "impl-pyarrow": ".venvs/impl-pyarrow",
}


def _python_version(prefix: Path) -> str | None:
    cfg = prefix / "pyvenv.cfg"
    if not cfg.is_file():
        return None
    for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("version_info", "version"):
            return value.strip()
    return None


def _name_version(dist: metadata.Distribution) -> tuple[str | None, str | None]:
    """Name and Version from the metadata's header block alone (the long description
    after it, most of the file, is never parsed)."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    headers = HeaderParser().parsestr(text.split("\n\n", 1)[0] + "\n")
    return headers["Name"], headers["Version"]


def _packages(prefix: Path) -> dict[str, str]:
    paths = [str(p) for p in sorted(prefix.glob("lib/python*/site-packages"))]
    if not paths:
        return {}
    out: dict[str, str] = {}
    for dist in metadata.distributions(path=paths):
        name, version = _name_version(dist)
        if name:
            out[name.lower().replace("_", "-")] = version
    return dict(sorted(out.items()))


def describe(src: Path) -> dict[str, object]:
    envs: dict[str, object] = {}
    for name, rel in ENVIRONMENTS.items():
        prefix = Path(sys.prefix) if rel is None else src / rel
        if not prefix.is_dir():
            envs[name] = {"present": False}
            continue
        version = _python_version(prefix) or (
            ".".join(map(str, sys.version_info[:3])) if rel is None else None
        )
        envs[name] = {"python": version, "packages": _packages(prefix)}
    lock = src / "uv.lock"
    return {
        "uv_lock_blake3": file_blake3(lock) if lock.is_file() else None,
        "environments": envs,
    }
