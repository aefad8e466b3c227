"""The two contestants share no code and never load each other's library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, impl_python, run

FORBIDDEN = {
    "pandas": {"pyarrow", "polars", "impl_pyarrow", "audit", "controls"},
    "pyarrow": {"pandas", "numpy", "polars", "fastparquet", "impl_pandas", "audit", "controls"},
}
# Runs the contestant's real command line in-process, then lists every module loaded.
PROBE = """
import runpy, sys
sys.argv = ["impl", "--prereg", sys.argv[1], "--bundle", sys.argv[2], "--out", sys.argv[3]]
try:
    runpy.run_module(MODULE, run_name="__main__")
except SystemExit as e:
    assert not e.code, e.code
print("\\n".join(sorted({m.split(".")[0] for m in sys.modules})))
"""


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_contestant_never_loads_the_others_library(
    impl: str, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    code = PROBE.replace("MODULE", repr(f"impl_{impl}"))
    res = run(
        [
            str(impl_python(impl)),
            "-c",
            code,
            str(ROOT / "prereg" / "demo.yaml"),
            str(demo_bundle),
            str(tmp_path / "out"),
        ]
    )
    assert res.code == 0, res.stderr
    loaded = set(res.stdout.split())
    assert f"impl_{impl}" in loaded  # the probe really ran the contestant
    assert (tmp_path / "out" / "cells.csv").is_file()
    assert loaded & FORBIDDEN[impl] == set()


@pytest.mark.parametrize(("impl", "other"), [("pandas", "pyarrow"), ("pyarrow", "pandas")])
def test_the_others_library_is_not_even_installed(impl: str, other: str, impl_envs) -> None:
    res = run([str(impl_python(impl)), "-c", f"import {other}"])
    assert res.code != 0 and "ModuleNotFoundError" in res.stderr


def test_import_contracts_hold() -> None:
    p = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "0 broken" in p.stdout


@pytest.mark.parametrize("module", ["pandas", "pyarrow", "snakemake_executor_plugin_slurm"])
def test_the_referees_environment_holds_neither_library_nor_the_slurm_plugin(module: str) -> None:
    # pyproject.toml: neither contestant's library; the SLURM plugin (which
    # brings pandas) lives in the `cluster` group's environment only.
    res = run([sys.executable, "-c", f"import {module}"])
    assert res.code != 0 and "ModuleNotFoundError" in res.stderr, (
        f"{module} is importable in the default environment; `uv sync` removes what"
        " pyproject.toml no longer asks for"
    )
