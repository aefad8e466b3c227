"""What is computed is what was locked: a bundle file swapped after the lock is refused.

The swap keeps the file's modification time, so nothing but its bytes tells it
apart. Every job that reads a bundle file (each contestant, each control's
prediction and perturbation) is tried on its own; then the whole DAG, locked
first, is run again after the swap.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import polars as pl
import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, impl_python, run, run_audit, run_dag


def _swap(path: Path) -> tuple[str, str]:
    """Replace the file by other content, keeping its mtime; return (old, new) blake3."""
    old = file_blake3(path)
    st = path.stat()
    df = pl.read_parquet(path)
    df = df.with_columns(pl.col(df.columns[-1]).reverse())
    df.write_parquet(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return old, file_blake3(path)


@pytest.fixture
def locked(tmp_path: Path, demo_bundle: Path) -> tuple[Path, Path]:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    prereg = ROOT / "prereg" / "demo.yaml"
    res = run_audit(
        "lock", "--kind", "leaderboard", "--prereg", prereg, "--expected-blake3", file_blake3(prereg),
        "--bundle", bundle, "--out-dir", tmp_path / "lock", "--events", tmp_path / "events.json",
    )  # fmt: skip
    assert res.code == 0, res.stderr
    return bundle, tmp_path / "lock"


def _refused(res, path: Path, old: str, new: str) -> None:
    assert res.code == 2, res.stdout + res.stderr
    line = res.stderr.strip()
    assert line.count("\n") == 0 and line.startswith(f"error[bundle_changed]: {path}:"), line
    assert old in line and new in line


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_a_contestant_refuses_a_file_swapped_after_the_lock(
    impl, impl_envs, locked, tmp_path: Path
) -> None:
    bundle, lock = locked
    out = tmp_path / "out"
    argv = [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(lock / "prereg.yaml")]
    argv += ["--bundle", str(bundle), "--lock", str(lock / "files.json"), "--out", str(out)]
    assert run([*argv, "--no-draws"]).code == 0  # the locked bytes: computed
    shutil.rmtree(out)
    old, new = _swap(bundle / "instances.parquet")
    _refused(run([*argv, "--no-draws"]), bundle / "instances.parquet", old, new)
    assert not out.exists()


def test_controls_refuse_a_file_swapped_after_the_lock(locked, tmp_path: Path) -> None:
    bundle, lock = locked
    base = [sys.executable, "-m", "controls"]
    common = [
        "--prereg",
        str(lock / "prereg.yaml"),
        "--kind",
        "leaderboard",
        "--bundle",
        str(bundle),
    ]
    common += ["--lock", str(lock / "files.json"), "--control", "flip_m2_beta"]
    ok = run([*base, "predict", *common, "--out", str(tmp_path / "controls")])
    assert ok.code == 0, ok.stderr
    assert (tmp_path / "controls" / "flip_m2_beta" / "stamp.json").is_file()
    old, new = _swap(bundle / "leaderboard.parquet")
    again = run([*base, "predict", *common, "--out", str(tmp_path / "again")])
    _refused(again, bundle / "leaderboard.parquet", old, new)
    res = run([*base, "perturb", *common, "--controls", str(tmp_path / "controls"),
               "--events", str(tmp_path / "events")])  # fmt: skip
    _refused(res, bundle / "leaderboard.parquet", old, new)
    assert not (tmp_path / "events").exists()
    assert not (tmp_path / "controls" / "flip_m2_beta" / "bundle").exists()


@pytest.mark.slow
def test_the_dag_refuses_a_bundle_swapped_between_the_lock_and_the_recompute(
    impl_envs, tmp_path: Path, demo_bundle: Path
) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    config = [f"prereg={ROOT / 'prereg' / 'demo.yaml'}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config, "--", "results/demo/lock/lock.json")
    assert p.returncode == 0, p.stderr[-2000:]
    lock = json.loads((tmp_path / "results/demo/lock/files.json").read_text())
    old, new = _swap(bundle / "instances.parquet")
    assert lock["instances"]["blake3"] == old
    before = {p: p.read_bytes() for p in (tmp_path / "results/demo").rglob("*") if p.is_file()}
    q = run_dag(tmp_path, "--config", *config)
    # The locked arm's bundle content is checked before any job (audit/preflight.py):
    # one line naming both digests, exit 2, nothing run. A swap while a job runs is
    # still refused by the job itself (the tests above).
    assert q.returncode == 2, q.stdout[-2000:] + q.stderr[-2000:]
    lines = [x for x in q.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in q.stderr, q.stderr[-2000:]
    assert lines[0].startswith(f"error[arm_locked]: {bundle / 'instances.parquet'}:"), lines
    assert old in lines[0] and new in lines[0] and "content digest" in lines[0], lines
    after = {p: p.read_bytes() for p in (tmp_path / "results/demo").rglob("*") if p.is_file()}
    assert after == before
    assert not (tmp_path / "results/demo/census.txt").exists()
    assert not (tmp_path / "results/demo/annex").exists()
