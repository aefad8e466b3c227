"""Every path a prereg names lies inside the bundle folder (issue 27's hunt).

A trials prereg's `source.jobs` passed the schema as `../jobs` (its pattern refuses only
a leading `/`), and a leaderboard prereg's file names as `..` (their pattern refuses only
a `/`): the lock and the adapter then read outside the bundle folder (a `../jobs` beside
it was adapted, hashed and locked as the arm's input). Now every path a prereg names, of
either kind, is checked by one function (audit/core/bundle_paths.py, called by both
kinds' lock checks, which preflight makes before any job): no absolute path, no `..`
component, else bad_prereg naming the key; one line, exit 2, nothing under
results/<arm>/. A symbolic link inside the folder is still followed, as the lock follows
it (the shipped Terminal-Bench test links its `results`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

BENCHFLOW = ROOT.parent / "shared" / "bundles" / "benchflow-trials-sample"


def _refused(tmp: Path, prereg: Path, bundle: Path, arm: str, words: str) -> None:
    config = [f"arm={arm}", f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}",
              f"bundle={bundle}"]  # fmt: skip
    p = run_dag(tmp, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0] == f"error[bad_prereg]: {prereg}: {words}", lines
    assert not (tmp / "results" / arm).exists()


def test_trials_jobs_outside_the_bundle_is_refused_before_any_job(tmp_path: Path) -> None:
    """The BenchFlow jobs folder copied beside an empty bundle folder, the prereg naming
    it `../jobs`: before, the arm was adapted from it and locked (the run went on)."""
    if not (BENCHFLOW / "jobs").is_dir():
        pytest.skip(f"bundle not present at {BENCHFLOW}")
    shutil.copytree(BENCHFLOW / "jobs", tmp_path / "jobs")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    text = (ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8")
    assert text.count("\n  jobs: jobs\n") == 1
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace("\n  jobs: jobs\n", "\n  jobs: ../jobs\n"), encoding="utf-8")
    words = "source.jobs '../jobs' has a '..' component: it must lie inside the bundle folder"
    _refused(tmp_path, prereg, bundle, "bf-outside", words)


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("  leaderboard: leaderboard.parquet\n", "  leaderboard: ..\n",
         "bundle.leaderboard '..' has a '..' component"),
        ("  instances: instances.parquet\n", "  instances: ..\n",
         "bundle.instances '..' has a '..' component"),
    ],
)  # fmt: skip
def test_a_leaderboard_prereg_file_outside_the_bundle_is_refused(
    old: str, new: str, words: str, tmp_path: Path, demo_bundle: Path
) -> None:
    """`..` as a file name (the schema refuses only a `/`): the bundle's parent folder."""
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(old, new), encoding="utf-8")
    _refused(
        tmp_path, prereg, demo_bundle, "demo", words + ": it must lie inside the bundle folder"
    )
