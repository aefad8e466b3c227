"""A contestant's environment is trusted only once it is complete (audit.core.envs).

An interrupted ``uv sync`` can leave a distribution's metadata without its
files: uv then reports the environment in sync (``uv sync --check`` exits 0)
and the contestant dies on ``ModuleNotFoundError``. Before this check, the
impl_env rule ran ``uv sync && touch marker``, so the next run marked such an
environment synced and trusted it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from audit.core import envs
from tests.conftest import ROOT, SNAKEMAKE, clone_repo

MARKER = "results/envs/impl-pandas.synced"


def _fake_venv(root: Path) -> Path:
    """A venv with one distribution whose RECORD lists two files, sizes 3 and 5."""
    sp = root / "lib" / "python3.11" / "site-packages"
    (sp / "pkg").mkdir(parents=True)
    (sp / "pkg" / "__init__.py").write_bytes(b"x=1")
    (sp / "pkg" / "core.py").write_bytes(b"y = 2")
    info = sp / "pkg-1.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text(
        "pkg/__init__.py,sha256=abc,3\npkg/core.py,sha256=def,5\npkg-1.0.dist-info/RECORD,,\n"
    )
    return root


def test_a_complete_environment_has_no_problem(tmp_path: Path) -> None:
    venv = _fake_venv(tmp_path / "v")
    assert envs.incomplete(venv) == []
    assert envs.distributions(venv) == ["pkg-1.0.dist-info"]


def test_a_missing_or_short_file_is_found(tmp_path: Path) -> None:
    venv = _fake_venv(tmp_path / "v")
    sp = venv / "lib" / "python3.11" / "site-packages"
    (sp / "pkg" / "__init__.py").unlink()
    (sp / "pkg" / "core.py").write_bytes(b"y")  # cut short: 1 byte where RECORD says 5
    assert envs.incomplete(venv) == [
        "pkg-1.0.dist-info: pkg/__init__.py is missing",
        "pkg-1.0.dist-info: pkg/core.py has 1 bytes, not 5",
    ]


def test_a_marker_naming_a_removed_distribution_is_stale(tmp_path: Path) -> None:
    venv = _fake_venv(tmp_path / "v")
    marker = tmp_path / "m.synced"
    marker.write_text(json.dumps({"distributions": ["pkg-1.0.dist-info"]}))
    assert envs.stale_marker(marker, venv) is None
    shutil.rmtree(venv / "lib" / "python3.11" / "site-packages" / "pkg-1.0.dist-info")
    assert envs.stale_marker(marker, venv).startswith("pkg-1.0.dist-info is not installed")


def _numpy(clone: Path) -> subprocess.CompletedProcess:
    python = clone / ".venvs" / "impl-pandas" / "bin" / "python"
    return subprocess.run(
        [str(python), "-c", "import numpy, pandas"], capture_output=True, text=True, check=False
    )


def _env_rule(clone: Path, work: Path) -> subprocess.CompletedProcess:
    (work / "config").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "config" / "config.yaml", work / "config" / "config.yaml")
    argv = [SNAKEMAKE, "--snakefile", str(clone / "Snakefile"), "--directory", str(work)]
    return subprocess.run(
        [*argv, "--cores", "1", MARKER, "--config", f"prereg={clone / 'prereg' / 'demo.yaml'}"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_a_half_environment_is_synced_again(tmp_path: Path) -> None:
    # A clone of its own, so its environment can be broken without touching the
    # repository's. The impl_env rule makes it from uv's cache.
    clone = clone_repo(tmp_path / "clone")
    work = tmp_path / "work"
    p = _env_rule(clone, work)
    assert p.returncode == 0, p.stderr[-3000:]
    assert _numpy(clone).returncode == 0
    numpy = next((clone / ".venvs" / "impl-pandas").glob("lib/python*/site-packages/numpy"))

    # 1. A sync interrupted midway: numpy's metadata is there, its package is not,
    #    and no marker was written. uv takes the environment as in sync.
    shutil.rmtree(numpy)
    (work / MARKER).unlink()
    assert "No module named 'numpy'" in _numpy(clone).stderr
    p = _env_rule(clone, work)
    assert p.returncode == 0, p.stderr[-3000:]
    assert _numpy(clone).returncode == 0, "the marker was written on a half environment"

    # 2. A marker left by a complete sync, and the environment broken since (one
    #    file of numpy gone): the run that starts drops the marker and syncs again.
    (numpy / "__init__.py").unlink()
    p = _env_rule(clone, work)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "environment is incomplete" in p.stdout + p.stderr
    assert _numpy(clone).returncode == 0
    assert json.loads((work / MARKER).read_text())["group"] == "impl-pandas"


def test_an_environment_in_sync_is_checked_not_synced(tmp_path: Path, monkeypatch) -> None:
    """A complete environment that matches the lock is marked after uv's check alone:
    no `uv sync` that would compile every module again (about 0.5 s of each run's
    start, twice). A missing one is synced, then checked. uv is a logging stand-in
    here, so what was asked of it is seen."""
    calls: list[list[str]] = []

    class Done:
        returncode = 0
        stdout = stderr = ""

    def fake_uv(project: str, venv: str, group: str, *extra: str) -> Done:
        calls.append(list(extra))
        if "--check" not in extra:  # a sync: the environment appears
            _fake_venv(Path(venv))
        return Done()

    monkeypatch.setattr(envs, "_uv", fake_uv)
    venv = _fake_venv(tmp_path / "venv")
    assert envs.sync(str(ROOT), str(venv), "impl-pandas", str(tmp_path / "m1")) == 0
    assert calls == [["--check"]]
    assert json.loads((tmp_path / "m1").read_text())["distributions"] == ["pkg-1.0.dist-info"]

    calls.clear()
    fresh = tmp_path / "fresh"
    assert envs.sync(str(ROOT), str(fresh), "impl-pandas", str(tmp_path / "m2")) == 0
    assert calls == [["--compile-bytecode"], ["--check"]]


def _sync(venv: Path, marker: Path) -> subprocess.CompletedProcess:
    argv = ["python", "-m", "audit.core.envs", "sync", "--project", str(ROOT), "--venv", str(venv)]
    return subprocess.run(
        [*argv, "--group", "impl-pyarrow", "--marker", str(marker)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.slow
def test_what_a_reinstall_leaves_is_made_afresh(tmp_path: Path) -> None:
    # A distribution's metadata folder that no uv sync removes: its RECORD lists
    # neither RECORD nor INSTALLER, so uv uninstalls the package and METADATA and
    # leaves the folder, and every later check still finds its files missing. By
    # hand, before the environment was made afresh, this very folder ended each
    # run of the same command in env_incomplete (after the sync and the
    # reinstall). Five real SIGKILLs of a sync's process group (0.15 to 1.2 s in)
    # left nothing the first sync or the reinstall did not mend; this is the
    # state past both, built by hand.
    venv, marker = tmp_path / "impl-pyarrow", tmp_path / "impl-pyarrow.synced"
    first = _sync(venv, marker)
    assert first.returncode == 0, first.stdout + first.stderr
    marker.unlink()
    sp = next(venv.glob("lib/python*/site-packages"))
    info = sp / "oldpkg-0.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: oldpkg\nVersion: 0.9\n")
    (info / "INSTALLER").write_text("uv\n")
    (info / "RECORD").write_text(
        "oldpkg/__init__.py,sha256=abc,10\noldpkg-0.9.dist-info/METADATA,,\n"
    )
    assert envs.incomplete(venv)  # the check sees the leftover
    again = _sync(venv, marker)
    said = again.stdout + again.stderr
    assert again.returncode == 0, said[-3000:]
    assert "made afresh" in said and "error[" not in said, said[-3000:]
    assert not info.exists() and envs.incomplete(venv) == []
    assert json.loads(marker.read_text())["group"] == "impl-pyarrow"
    python = venv / "bin" / "python"
    ok = subprocess.run([str(python), "-c", "import pyarrow"], capture_output=True, check=False)
    assert ok.returncode == 0, ok.stderr
