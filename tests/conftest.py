"""Shared test helpers: where things are, and how to run each program as a process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REAL_BUNDLE = (ROOT / ".." / "shared" / "bundles" / "openhands-index-3015ac6").resolve()
IMPLS = ["pandas", "pyarrow"]
IMPL_PARAMS = [pytest.param(i, id=i) for i in IMPLS]


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def impl_python(impl: str) -> Path:
    return ROOT / ".venvs" / f"impl-{impl}" / "bin" / "python"


def sync_env(impl: str) -> None:
    """Make the contestant's own environment from uv.lock (only its group)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["UV_PROJECT_ENVIRONMENT"] = str(ROOT / ".venvs" / f"impl-{impl}")
    subprocess.run(
        [
            os.environ.get("UV", "uv"),
            "sync",
            "--project",
            str(ROOT),
            "--frozen",
            "--only-group",
            f"impl-{impl}",
            "-q",
        ],
        check=True,
        env=env,
        cwd=ROOT,
    )


@pytest.fixture(scope="session")
def impl_envs() -> None:
    for impl in IMPLS:
        sync_env(impl)


def run(cmd: list[str], cwd: Path = ROOT, timeout: float = 600) -> Result:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run(
        cmd, check=False, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    return Result(p.returncode, p.stdout, p.stderr)


def run_impl(impl: str, prereg: Path, bundle: Path, out: Path) -> Result:
    """One contestant as its own OS process, in its own environment."""
    return run(
        [
            str(impl_python(impl)),
            "-m",
            f"impl_{impl}",
            "--prereg",
            str(prereg),
            "--bundle",
            str(bundle),
            "--out",
            str(out),
        ]
    )


def run_audit(*args: str, cwd: Path = ROOT, timeout: float = 600) -> Result:
    return run([sys.executable, "-m", "audit", *map(str, args)], cwd=cwd, timeout=timeout)


@pytest.fixture(scope="session")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo-bundle")
    res = run_audit("demo-bundle", "--out", out)
    assert res.code == 0, res.stderr
    return out


@pytest.fixture
def real_bundle() -> Path:
    if not (REAL_BUNDLE / "test.parquet").is_file():
        pytest.skip(f"real bundle not present at ../shared/bundles/{REAL_BUNDLE.name}")
    return REAL_BUNDLE


@pytest.fixture(scope="session")
def arm_run(impl_envs, tmp_path_factory: pytest.TempPathFactory):
    """A shipped arm (config/<arm>.yaml, prereg/<arm>.yaml, the bundle named) run once
    per session through the DAG, for every test that reads its results:
    ``arm_run(arm, bundle)`` is ``results/<arm>`` of that run. Tests read it and never
    write under it; a bundle not present skips the test."""
    done: dict[str, Path] = {}

    def get(arm: str, bundle_name: str) -> Path:
        bundle = (ROOT / ".." / "shared" / "bundles" / bundle_name).resolve()
        if not bundle.is_dir():
            pytest.skip(f"real bundle not present at ../shared/bundles/{bundle_name}")
        if arm not in done:
            work = tmp_path_factory.mktemp(arm)
            p = run_dag(
                work,
                "--configfile",
                str(ROOT / "config" / f"{arm}.yaml"),
                "--config",
                f"prereg={ROOT / 'prereg' / f'{arm}.yaml'}",
                f"bundle={bundle}",
            )
            assert p.returncode == 0, p.stderr[-3000:]
            done[arm] = work / "results" / arm
        return done[arm]

    return get


@pytest.fixture(scope="session")
def real_run(arm_run) -> Path:
    """The real bundle's arm (config/openhands-index.yaml), run once per session."""
    return arm_run("openhands-index", REAL_BUNDLE.name)


def copy_bundle(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        shutil.copyfile(f, dst / f.name)
    return dst


def read_csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def annex_head(annex: Path) -> str:
    """The annex head, as the seal line's hash (what the run prints last)."""
    import json

    last = (annex / "ledger.jsonl").read_text(encoding="utf-8").splitlines()[-1]
    return json.loads(last)["hash"]


# Headless Chromium as the report tests run it: no sandbox (root in CI), no GPU, no
# network of its own, nothing synced (each test adds its own --user-data-dir).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def run_dag(workdir: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """The repository's Snakefile run in ``workdir``, so results land there, not in the repo."""
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "config" / "config.yaml", workdir / "config" / "config.yaml")
    with (workdir / "config" / "config.yaml").open("a", encoding="utf-8") as f:
        # no network from a test's run: the vulnerability audit records "disabled by config"
        f.write("vulnerability_audit: false\n")
    return subprocess.run(
        [
            SNAKEMAKE,
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(workdir),
            "--cores",
            "2",
            *args,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def clone_repo(dst: Path) -> Path:
    """The repository's workflow and packages copied to dst (no environments, no results):
    a clone of its own, whose .venvs the workflow's impl_env rule makes."""
    dst.mkdir(parents=True)
    for name in ("Snakefile", "pyproject.toml", "uv.lock", "README.md"):
        shutil.copyfile(ROOT / name, dst / name)
    ignore = shutil.ignore_patterns("__pycache__")
    for name in ("workflow", "audit", "controls", "impl_pandas", "impl_pyarrow", "prereg"):
        shutil.copytree(ROOT / name, dst / name, ignore=ignore)
    return dst
