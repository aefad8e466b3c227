"""Locked means locked, sealed means sealed: a sealed arm is never rewritten.

The demo arm is run to its seal on a copy of the demo bundle. Then, as a user
could by mistake: the same config with another bundle (one instance value
changed), with the same table written by another writer (same content, other
bytes), as a second seat under the same arm name, and after deleting one file
of the arm. Each is refused before any job with one line and exit 2, and every
file under results/demo/ keeps its bytes and its time. The original head still
verifies, and the correct command afterwards does nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest

from audit.bundles.digest import table_digest
from audit.files import file_blake3
from tests.conftest import ROOT, annex_head, run_audit, run_dag

RES = "results/demo"


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _one_error(p, kind: str) -> str:
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0].startswith(f"error[{kind}]: "), lines
    return lines[0]


@pytest.mark.slow
def test_a_sealed_arm_refuses_every_other_input(
    impl_envs, tmp_path: Path, demo_bundle: Path
) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    first = run_dag(tmp_path, "--config", prereg, f"bundle={bundle}")
    assert first.returncode == 0, first.stderr[-3000:]
    res = tmp_path / RES
    head = annex_head(res / "annex")
    before = _files(res)
    locked = json.loads((res / "lock" / "lock.json").read_text())["bundle"]

    # another bundle: one instance value changed (a later commit of the same board)
    other = tmp_path / "other"
    shutil.copytree(demo_bundle, other)
    df = pl.read_parquet(other / "instances.parquet")
    df.with_columns(pl.col("cost") * 2).write_parquet(other / "instances.parquet")
    p = run_dag(tmp_path, "--config", prereg, f"bundle={other}")
    line = _one_error(p, "arm_locked")
    assert line.startswith(f"error[arm_locked]: {other / 'instances.parquet'}: "), line
    assert locked["instances"]["content_digest"] in line  # both digests named
    assert locked["leaderboard"]["content_digest"] not in line
    assert str(table_digest(other / "instances.parquet")["content_digest"]) in line
    assert _files(res) == before

    # the same table written by another writer: same content, other bytes
    same = tmp_path / "same"
    shutil.copytree(demo_bundle, same)
    pl.read_parquet(same / "instances.parquet").write_parquet(
        same / "instances.parquet", compression="uncompressed"
    )
    assert file_blake3(same / "instances.parquet") != file_blake3(bundle / "instances.parquet")
    line = _one_error(run_dag(tmp_path, "--config", prereg, f"bundle={same}"), "arm_locked")
    assert "same content" in line and file_blake3(same / "instances.parquet") in line
    assert _files(res) == before

    # a second seat under the first seat's arm name (its own annex, the same bundle)
    second = ["seat=second", f"annex={res / 'annex'}", f"head={head}", f"bundle={bundle}"]
    line = _one_error(run_dag(tmp_path, "--config", *second), "arm_locked")
    assert "second seat" in line, line
    assert _files(res) == before

    # a file of the sealed arm the run asks for, deleted: rebuilding it would reseal the
    # arm under another head (census.txt, a final target)
    report = res / "census.txt"
    kept = report.read_bytes()
    report.unlink()
    without = _files(res)
    line = _one_error(run_dag(tmp_path, "--config", prereg, f"bundle={bundle}"), "arm_sealed")
    assert head in line and "census" in line, line
    assert _files(res) == without
    assert (res / "annex" / "census.txt").read_bytes() == kept
    report.write_bytes(kept)  # restored from the annex, with its time, as the line says
    os.utime(report, ns=(before["census.txt"][1], before["census.txt"][1]))

    # the same bytes with a new time (the bundle downloaded again, the prereg checked out
    # again): the same inputs, so nothing runs
    for f in (bundle / "instances.parquet", bundle / "leaderboard.parquet"):
        os.utime(f)
    again = run_dag(tmp_path, "--config", prereg, f"bundle={bundle}")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Nothing to be done" in again.stdout + again.stderr
    assert _files(res) == before

    # the original head verifies; the correct command does nothing
    ver = run_audit("verify", res / "annex", "--head", head)
    assert ver.code == 0, ver.stdout + ver.stderr
    again = run_dag(tmp_path, "--config", prereg, f"bundle={bundle}")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Nothing to be done" in again.stdout + again.stderr
    assert {k: v[0] for k, v in _files(res).items()} == {k: v[0] for k, v in before.items()}
