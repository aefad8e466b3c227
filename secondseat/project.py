"""Where the workflow runs from: the clone itself, or a copy of what the package ships.

The workflow takes the folder holding its Snakefile as the repository
(``SRC = workflow.basedir`` in workflow/rules/common.smk): the packages on
PYTHONPATH, pyproject.toml and uv.lock for the contestants' environments, and
``.venvs/`` where those are made. In a clone that folder is the clone. An
installed package ships the Snakefile, workflow/, profiles/, config/, prereg/,
pyproject.toml and uv.lock as data (secondseat/shipped/, put there by the wheel
build, pyproject.toml), and its packages sit in site-packages beside every other
distribution, which a contestant's PYTHONPATH must not see. So the first
``secondseat audit`` lays out a folder shaped like a clone, under
``$XDG_CACHE_HOME/secondseat/`` (~/.cache when unset): the shipped files and
copies of the four packages (audit, controls, impl_pandas, impl_pyarrow). It is
named for the version and the blake3 of its content, written to a temporary
folder and renamed into place, so a reinstall of other code gets a new folder
and concurrent first runs end with one complete copy.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import blake3

from audit.errors import AuditError

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "shipped"  # present only in an installed wheel
PACKAGES = ("audit", "controls", "impl_pandas", "impl_pyarrow")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "secondseat"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise AuditError("missing_file", name, "the package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _sources() -> dict[str, Path]:
    """Each top-level name of the project folder and where it comes from."""
    out = {p.name: p for p in sorted(SHIPPED.iterdir()) if p.name != "__pycache__"}
    return out | {name: _package_dir(name) for name in PACKAGES}


def _files(top: Path) -> list[Path]:
    if top.is_file():
        return [top]
    return sorted(
        p
        for p in top.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )


def digest(sources: dict[str, Path]) -> str:
    """blake3 over every file's path in the project folder and its bytes."""
    h = blake3.blake3()
    for name, top in sorted(sources.items()):
        for f in _files(top):
            rel = name if f == top else f"{name}/{f.relative_to(top).as_posix()}"
            h.update(rel.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def root() -> Path:
    """The folder the workflow runs from (see the module's doc)."""
    clone = HERE.parent
    if not (SHIPPED / "Snakefile").is_file():
        if (clone / "Snakefile").is_file() and (clone / "pyproject.toml").is_file():
            return clone  # a clone, or an editable install of one
        raise AuditError(
            "missing_file", str(SHIPPED / "Snakefile"), "the packaged workflow is absent"
        )
    return materialise(cache_home())


def materialise(home: Path) -> Path:
    sources = _sources()
    try:
        ver = version("secondseat")
    except PackageNotFoundError:
        ver = "0"
    dest = home / f"project-{ver}-{digest(sources)[:16]}"
    if (dest / "Snakefile").is_file():
        return dest
    home.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".project-", dir=home))
    try:
        for name, src in sources.items():
            if src.is_dir():
                shutil.copytree(src, tmp / name, ignore=SKIP)
            else:
                shutil.copyfile(src, tmp / name)
        try:
            tmp.rename(dest)
        except OSError:
            if not (dest / "Snakefile").is_file():  # not another run's complete copy
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
