"""Runs that are not the whole DAG on a healthy folder: one output asked for, a folder
that cannot be written, files dated after the machine's clock.

One working folder is built once: the demo's census alone
(``snakemake results/demo/census.txt``, as the README's table of outputs
invites). The other tests each break it in one way, check the run is refused
in one line before any job, with every file left as it was (bytes and times),
and put it back.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_dag

PREREG = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
CENSUS = "results/demo/census.txt"


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def census_only(impl_envs, tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("census-only")
    p = run_dag(work, CENSUS, "--config", PREREG)
    return work, p


@pytest.mark.slow
def test_one_documented_output_builds_alone_and_exits_0(census_only) -> None:
    # Before: the end-of-run handler ran `cat census.txt controls.csv; grep ...
    # annex/README.md`, and neither of the last two exists after this target.
    work, p = census_only
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "56 cells = 4 rows x 14 columns" in p.stdout  # the census, printed at the end
    res = work / "results" / "demo"
    assert (res / "census.txt").is_file()
    assert not (res / "controls.csv").exists() and not (res / "annex").exists()
    assert "Ledger head" not in p.stdout


def _refused(p: subprocess.CompletedProcess, kind: str, file: str) -> str:
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in p.stdout + p.stderr, p.stderr[-2000:]
    assert lines[0].startswith(f"error[{kind}]: {file}: "), lines
    return lines[0]


@pytest.mark.slow
def test_a_file_dated_after_the_clock_stops_the_run(census_only) -> None:
    # A recompute output stamped an hour ahead (written while the clock ran
    # ahead): it looks newer than the agreement and census made from it, so
    # Snakemake would remove and rebuild them. Refused instead.
    work, built = census_only
    assert built.returncode == 0
    res = work / "results" / "demo"
    cells = res / "recompute" / "pandas" / "run1" / "cells.csv"
    st = cells.stat()
    os.utime(cells, (st.st_atime, time.time() + 3600))
    try:
        before = _files(res)
        p = run_dag(work, "--config", PREREG)
        line = _refused(p, "clock_skew", "results/demo/recompute/pandas/run1/cells.csv")
        assert "after this machine's clock" in line
        assert _files(res) == before
    finally:
        os.utime(cells, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.slow
def test_an_unwritable_results_folder_stops_the_run(census_only) -> None:
    # Root writes through any permission bits, so the folder is made immutable
    # (chattr +i: no entry may be created, renamed or removed in it).
    work, built = census_only
    assert built.returncode == 0
    res = work / "results" / "demo"
    if subprocess.run(["chattr", "+i", str(res)], capture_output=True, check=False).returncode:
        pytest.skip("chattr +i is not available here (no CAP_LINUX_IMMUTABLE or no support)")
    try:
        before = _files(res)
        p = run_dag(work, "--config", PREREG)
        line = _refused(p, "unwritable", "results/demo")
        assert "nothing was run or removed" in line
        assert _files(res) == before
    finally:
        subprocess.run(["chattr", "-i", str(res)], check=True)
