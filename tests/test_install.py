"""The installable `secondseat`: the wheel's contents, the folder `secondseat audit` runs
from, its Snakemake command line, and (slow) a real install outside the repository."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import blake3
import pytest
import yaml

from audit.errors import AuditError
from secondseat import project, workflow_run
from tests.conftest import ROOT, run_impl

UV = shutil.which("uv")
needs_uv = pytest.mark.skipif(UV is None, reason="uv is not on PATH")


def _args(**kw) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    workflow_run.add_arguments(p)
    return p.parse_args([x for k, v in kw.items() for x in (f"--{k.replace('_', '-')}", v)])


def _config(argv: list[str]) -> dict[str, str]:
    i = argv.index("--config")
    return dict(x.split("=", 1) for x in argv[i + 1 :])


def test_the_command_line_names_the_packaged_snakefile_and_the_run_settings() -> None:
    args = _args(bundle="b", prereg=str(ROOT / "prereg" / "skillsbench-registry.yaml"))
    argv = workflow_run.command(args, ROOT)
    assert argv[:5] == [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile")]
    assert argv[argv.index("--workflow-profile") + 1] == str(ROOT / "profiles" / "default")
    assert argv[argv.index("--cores") + 1] == "2"
    cfg = _config(argv)
    # The blake3 the repository's own config records for this prereg (written when it
    # was fixed), not recomputed by the code under test.
    recorded = yaml.safe_load((ROOT / "config" / "skillsbench-registry.yaml").read_text())
    assert cfg["prereg_blake3"] == recorded["prereg_blake3"]
    assert cfg["arm"] == "skillsbench-registry"  # the file's name without .yaml
    assert cfg["bundle"] == "b"
    # The prereg declares `kind: trials`; the workflow reads it there, never from
    # the config (a config naming it is refused).
    assert "kind" not in cfg


def test_the_demo_needs_neither_bundle_nor_prereg() -> None:
    cfg = _config(workflow_run.command(_args(), ROOT))
    assert cfg == {"prereg": str(ROOT / "prereg" / "demo.yaml")}  # the rest: config/config.yaml


def test_a_bundle_without_a_prereg_is_refused() -> None:
    with pytest.raises(AuditError) as e:
        workflow_run.command(_args(bundle="b"), ROOT)
    assert e.value.kind == "bad_args"


def test_an_edited_prereg_is_held_to_the_blake3_given(tmp_path: Path) -> None:
    prereg = tmp_path / "Mine v2.yaml"
    prereg.write_bytes(b"version: 1\n")
    cfg = _config(workflow_run.command(_args(bundle="b", prereg=str(prereg)), ROOT))
    assert cfg["prereg_blake3"] == blake3.blake3(b"version: 1\n").hexdigest()
    assert cfg["arm"] == "mine-v2"  # a folder name the config schema accepts
    given = "0" * 64
    args = _args(bundle="b", prereg=str(prereg), prereg_blake3=given)
    assert _config(workflow_run.command(args, ROOT))["prereg_blake3"] == given


def test_a_clone_runs_from_itself() -> None:
    assert project.root() == ROOT


def test_the_folder_shaped_like_a_clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = tmp_path / "shipped"
    (shipped / "config").mkdir(parents=True)
    (shipped / "Snakefile").write_text("# a workflow\n")
    (shipped / "config" / "config.yaml").write_text("arm: demo\n")
    monkeypatch.setattr(project, "SHIPPED", shipped)
    home = tmp_path / "cache"
    dest = project.materialise(home)
    assert (dest / "Snakefile").read_text() == "# a workflow\n"
    assert (dest / "config" / "config.yaml").read_text() == "arm: demo\n"
    for name in project.PACKAGES:  # copies of the installed packages, bytes unchanged
        assert (dest / name / "__init__.py").read_bytes() == (
            ROOT / name / "__init__.py"
        ).read_bytes()
    assert not list(dest.rglob("__pycache__"))
    assert (dest / "audit" / "report" / "templates" / "report.html.j2").is_file()
    assert project.materialise(home) == dest  # reused
    (shipped / "Snakefile").write_text("# another workflow\n")
    other = project.materialise(home)
    assert other != dest and (other / "Snakefile").read_text() == "# another workflow\n"
    assert sorted(p.name for p in home.iterdir()) == sorted([dest.name, other.name])  # no temp left


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    p = subprocess.run(
        [UV, "build", "--wheel", "--out-dir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    (whl,) = out.glob("secondseat-*.whl")
    return whl


@needs_uv
def test_the_wheel_holds_the_packages_their_data_and_the_workflow(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "secondseat/cli.py",
        "audit/__main__.py",
        "audit/commands/verify.py",
        "audit/report/templates/report.html.j2",
        "audit/report/templates/report.md.j2",
        "audit/selftest/faults.yaml",
        "controls/__main__.py",
        "impl_pandas/__main__.py",
        "impl_pyarrow/__main__.py",
    }
    # Every file the workflow reads beside its Snakefile, found by listing the repository.
    for top in ("workflow", "profiles", "config", "prereg"):
        expected |= {
            f"secondseat/shipped/{p.relative_to(ROOT).as_posix()}"
            for p in (ROOT / top).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
    expected |= {f"secondseat/shipped/{n}" for n in ("Snakefile", "pyproject.toml", "uv.lock")}
    assert expected - names == set()
    assert not {n for n in names if n.split("/")[0] in ("tests", "benchmarks", "results")}
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "secondseat = secondseat.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return env | {"XDG_CACHE_HOME": str(tmp / "cache")}


def _sh(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 900):
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=timeout
    )


@needs_uv
@pytest.mark.slow
def test_pip_install_then_audit_outside_the_repository(
    wheel: Path, tmp_path: Path, impl_envs
) -> None:
    env = _env(tmp_path)
    venv = tmp_path / "venv"
    assert _sh([UV, "venv", "-q", str(venv)], tmp_path, env).returncode == 0
    py = str(venv / "bin" / "python")
    got = _sh([UV, "pip", "install", "-q", "--python", py, str(wheel)], tmp_path, env)
    assert got.returncode == 0, got.stderr
    cmd = str(venv / "bin" / "secondseat")
    work = tmp_path / "work"
    work.mkdir()

    top = _sh([cmd, "--help"], work, env)
    assert top.returncode == 0 and "compare-annex" in top.stdout and "audit" in top.stdout
    helped = _sh([cmd, "verify", "--help"], work, env)
    assert helped.returncode == 0
    assert "the annex head the seat printed or published" in helped.stdout
    # The installed code, not the repository's, answers.
    where = _sh([py, "-c", "import audit; print(audit.__file__)"], work, env).stdout
    assert str(venv) in where and str(ROOT) not in where

    assert _sh([cmd, "demo-bundle", "--out", "bundle"], work, env).returncode == 0
    shutil.copyfile(ROOT / "prereg" / "demo.yaml", work / "demo.yaml")
    done = _sh([cmd, "audit", "--bundle", "bundle", "--prereg", "demo.yaml"], work, env, 1800)
    assert done.returncode == 0, done.stderr[-3000:]
    res = work / "results" / "demo"
    # the head as the run's summary prints it last ("Annex head (...): `<hex>`")
    head = re.findall(r"Annex head \(.*\): `([0-9a-f]{64})`", done.stdout)[-1]
    verified = _sh([cmd, "verify", str(res / "annex"), "--head", head], work, env)
    assert verified.returncode == 0, verified.stderr
    # The installed run's contestant output, byte for byte what the clone's own
    # contestant writes on the same bundle and prereg.
    clone = run_impl("pandas", ROOT / "prereg" / "demo.yaml", work / "bundle", tmp_path / "clone")
    assert clone.code == 0, clone.stderr
    for name in ("cells.csv", "census.csv"):
        mine = res / "recompute" / "pandas" / "run1" / name
        assert mine.read_bytes() == (tmp_path / "clone" / name).read_bytes()

    # The same wheel as a uv tool: its command finds the same workflow folder (same
    # code, same content) and, asked for the same run, has nothing left to do.
    tools = {"UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(tmp_path / "bin")}
    got = _sh([UV, "tool", "install", "-q", str(wheel)], tmp_path, env | tools)
    assert got.returncode == 0, got.stderr
    again = ["audit", "--bundle", "bundle", "--prereg", "demo.yaml", "-n"]
    dry = _sh([str(tmp_path / "bin" / "secondseat"), *again], work, env | tools)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "Nothing to be done" in dry.stdout + dry.stderr
