"""The trial adapter (docs/trials-contract.md section 2): hand-made job folders with every
status, the error classes, determinism, and the real BenchFlow sample (section 14)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import ROOT, run_audit

SAMPLE = ROOT / ".." / "shared" / "bundles" / "benchflow-trials-sample" / "jobs"


def _trial(folder: Path, tid: str, task: str, reward=None, exc=None, verifier=True, started=None):
    folder.mkdir(parents=True)
    doc: dict = {"id": tid, "task_name": task, "exception_info": None, "verifier_result": None}
    if reward is not None:
        doc["verifier_result"] = {"rewards": {"reward": reward}}
    if exc is not None:
        doc["exception_info"] = {"exception_type": exc}
    doc["verifier"] = {} if verifier else None
    if started is not None:
        doc["started_at"] = started
    (folder / "result.json").write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture
def hand_jobs(tmp_path: Path) -> Path:
    """Section 15.1: eight folders in run r."""
    r = tmp_path / "jobs" / "r"
    _trial(r / "a__1", "a1", "a", 1.0, started="2026-01-01T00:00:01Z")
    _trial(r / "a__1copy", "a1", "a", 1.0, started="2026-01-01T00:00:01Z")
    _trial(r / "a__2", "a2", "a", 0.5, started="2026-01-01T08:00:02+08:00")
    _trial(r / "a__3", "a3", "a", None, "RuntimeError", False, "2026-01-01T00:00:03Z")
    _trial(r / "a__4", "a4", "a", 0, started="2026-01-01T00:00:04.5Z")
    _trial(r / "b__1", "b1", "b", None, "RewardFileNotFoundError", True, "2026-01-01T00:00:01Z")
    _trial(r / "b__2", "b2", "b", 1, started="2026-01-01T00:00:02Z")
    (r / "c__x").mkdir()
    (r / "c__x" / "config.json").write_text("{}", encoding="utf-8")
    return tmp_path / "jobs"


def _adapt(jobs: Path, out: Path):
    res = run_audit("adapt-trials", "--jobs", jobs, "--format", "harbor-trial-v1", "--out", out)
    return res


def test_hand_made_every_status(hand_jobs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = _adapt(hand_jobs, out)
    assert res.code == 0, res.stderr
    t = pl.read_parquet(out / "trials.parquet")
    got = [
        (r["run"], r["task"], r["trial_id"], r["copy"], r["status"], r["reward"])
        for r in t.iter_rows(named=True)
    ]
    assert got == [
        ("r", "a", "a1", 0, "scored", 1.0),
        ("r", "a", "a1", 1, "scored", 1.0),
        ("r", "a", "a2", 0, "scored", 0.5),
        ("r", "a", "a3", 0, "errored", None),
        ("r", "a", "a4", 0, "scored", 0.0),
        ("r", "b", "b1", 0, "unscored", None),
        ("r", "b", "b2", 0, "scored", 1.0),
    ]
    assert t["started_at"][2] == "2026-01-01T00:00:02.000000Z"
    assert t["started_at"][4] == "2026-01-01T00:00:04.500000Z"
    assert t.columns[-22:][0] == "harness" and t.columns[-1] == "task_git_commit"
    assert all(t[c].null_count() == 7 for c in t.columns[-22:])
    doc = json.loads((out / "adapter.json").read_text(encoding="utf-8"))
    run = doc["runs"]["r"]
    assert run["copies"] == 1 and run["conflicting_copies"] == []
    assert run["no_result"] == ["r/c__x"]
    assert run["statuses"] == {"errored": 1, "scored": 4, "unscored": 1}
    assert run["config_sources"] == {"none": 6}
    assert run["crosscheck"] is None
    assert (out / "adapter.json").read_text(encoding="utf-8").endswith("}\n")
    # the census lists every setting as not recorded for 6 trials
    res = run_audit("settings-census", out / "trials.parquet", "--out", tmp_path / "set")
    assert res.code == 0, res.stderr
    assert "reasoning_effort: not recorded in 6 of 6 trials" in res.stdout
    lines = (tmp_path / "set" / "settings.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "run,setting,status,value,trials"
    assert len(lines) == 23 and all(ln.endswith(",not_recorded,,6") for ln in lines[1:])


def test_deterministic(hand_jobs: Path, tmp_path: Path) -> None:
    assert _adapt(hand_jobs, tmp_path / "o1").code == 0
    assert _adapt(hand_jobs, tmp_path / "o2").code == 0
    for f in ("trials.parquet", "adapter.json"):
        assert (tmp_path / "o1" / f).read_bytes() == (tmp_path / "o2" / f).read_bytes()


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.mark.parametrize(
    ("kind", "bad"),
    [
        ("unreadable", b'{"id": "x", '),
        ("unreadable", b"\xef\xbb\xbf{}"),
        ("unreadable", b'{"id": "\xff"}'),
        ("unknown_format", b'{"id": "x", "task_name": "t", "rewards": {"reward": 1}}'),
        ("bad_trial", b"[1, 2]"),
        ("bad_trial", b'{"id": "", "task_name": "t", "verifier_result": null}'),
        ("bad_trial", b'{"id": "x", "task_name": "t", "verifier_result": 3}'),
        ("bad_trial", b'{"id": "x", "task_name": "t", "verifier_result": {"rewards": []}}'),
        ("bad_trial", b'{"id": "x", "task_name": "t", "exception_info": null, "started_at": 5}'),
        (
            "bad_type",
            b'{"id": "x", "task_name": "t", "verifier_result": {"rewards": {"reward": true}}}',
        ),
        (
            "bad_type",
            b'{"id": "x", "task_name": "t", "verifier_result": {"rewards": {"reward": NaN}}}',
        ),
        (
            "bad_type",
            b'{"id": "x", "task_name": "t", "verifier_result": {"rewards": {"reward": "1"}}}',
        ),
    ],
)
def test_error_classes(tmp_path: Path, kind: str, bad: bytes) -> None:
    jobs = tmp_path / "jobs"
    _trial(jobs / "r" / "ok__1", "ok", "t", 1.0)
    _write(jobs / "r" / "zz__1" / "result.json", bad)
    out = tmp_path / "out"
    res = _adapt(jobs, out)
    assert res.code == 2
    assert res.stderr.startswith(f"error[{kind}]: {jobs}/r/zz__1/result.json: "), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not out.exists()


def test_missing_dir_and_duplicate_key(tmp_path: Path) -> None:
    res = _adapt(tmp_path / "nope", tmp_path / "out")
    assert res.code == 2 and res.stderr.startswith("error[missing_file]: ")
    jobs = tmp_path / "jobs"
    _trial(jobs / "r" / "a__1", "same", "a", 1.0)
    _trial(jobs / "r" / "b__1", "same", "b", 0.0)
    res = _adapt(jobs, tmp_path / "out")
    assert res.code == 2 and res.stderr.startswith("error[duplicate_key]: "), res.stderr
    assert not (tmp_path / "out").exists()


def test_conflicting_copies_config_sources_and_settings(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    _trial(jobs / "r" / "a__1", "a1", "a", 1.0)
    _trial(jobs / "r" / "a__2", "a1", "a", 0.0)
    cfg = {"agent": {"name": "h", "kwargs": {"version": 2}}, "timeout_multiplier": 2.0}
    (jobs / "r" / "a__2" / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    _trial(jobs / "s" / "a__1", "a1", "a", None, "X", False)
    (jobs / ".hidden").mkdir()
    (jobs / "stray.txt").write_text("x", encoding="utf-8")
    res = _adapt(jobs, tmp_path / "out")
    assert res.code == 0, res.stderr
    doc = json.loads((tmp_path / "out" / "adapter.json").read_text(encoding="utf-8"))
    assert doc["runs"]["r"]["conflicting_copies"] == ["a1"]
    assert doc["ids_in_several_runs"] == 1
    t = pl.read_parquet(tmp_path / "out" / "trials.parquet")
    row = t.filter((pl.col("run") == "r") & (pl.col("copy") == 1)).row(0, named=True)
    assert row["config_source"] == "config_json"
    assert (row["harness"], row["harness_version"], row["timeout_multiplier"]) == ("h", "2", "2.0")
    assert row["cpus"] is None  # path absent: not recorded


def test_real_sample(tmp_path: Path) -> None:
    if not SAMPLE.is_dir():
        pytest.skip("sample not present at ../shared/bundles/benchflow-trials-sample/jobs")
    out = tmp_path / "out"
    res = run_audit("adapt-trials", "../shared/bundles/benchflow-trials-sample/jobs", "--out", out)
    assert res.code == 0, res.stderr
    doc = json.loads((out / "adapter.json").read_text(encoding="utf-8"))
    ns, sk = doc["runs"]["no_skills"], doc["runs"]["skills"]
    assert ns["statuses"] == {"errored": 1, "scored": 24, "unscored": 5}
    assert sk["statuses"] == {"errored": 0, "scored": 25, "unscored": 0}
    assert ns["config_sources"] == {"both_equal": 30} and sk["config_sources"] == {"both_equal": 25}
    assert ns["crosscheck"] == {"agree": 30, "disagree": [], "not_listed": [], "listed_absent": 395}
    assert ns["copies"] == sk["copies"] == 0
    assert all(not f["path"].startswith("/") for f in doc["files"])
    t = pl.read_parquet(out / "trials.parquet")
    err = t.filter(pl.col("status") == "errored").row(0, named=True)
    assert err["trial_name"] == "dapt-intrusion-detection__V9bPmpB"
    assert err["error_type"] == "RuntimeError" and not err["verifier_ran"]
    uns = t.filter(pl.col("status") == "unscored")
    assert set(uns["task"]) == {"spring-boot-jakarta-migration"}
    assert set(uns["error_type"]) == {"RewardFileNotFoundError"}
    timeout = t.filter(pl.col("exception") & (pl.col("status") == "scored"))
    assert timeout["trial_name"].to_list() == ["adaptive-cruise-control__AdGo4J8"]
    assert timeout["reward"].to_list() == [0.0]
    res = run_audit("settings-census", out / "trials.parquet", "--out", tmp_path / "set")
    assert res.code == 0, res.stderr
    assert "timeout_multiplier: varies: 2.0 (45), 4.0 (10)" in res.stdout
    assert "reasoning_effort_sent: not recorded in 55 of 55 trials" in res.stdout
