"""Hugging Face datasets at a pinned commit, against a stand-in Hub on 127.0.0.1.

The stand-in (tests/hub_server.py) serves the demo bundle's two parquet files as LFS
files of the dataset acme/board at commit C1 (tag v1 and branch main name it). The
expected sha256s are computed here with hashlib from the served bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, Result
from tests.hub_server import Hub, Repo

C1 = "1f" * 20
C2 = "2e" * 20
FILES = ["leaderboard.parquet", "instances.parquet"]


@pytest.fixture
def repo(demo_bundle: Path) -> Repo:
    files = {name: (demo_bundle / name).read_bytes() for name in FILES}
    files["README.md"] = b"# acme/board\n"
    return Repo(
        "acme/board",
        {C1: files, C2: {"README.md": b"# only a card\n"}},
        {"main": C1, "v1": C1, "card-only": C2},
        lfs=set(FILES),
    )


def _audit(env: dict[str, str], *args: object) -> Result:
    p = subprocess.run(
        [sys.executable, "-m", "audit", *map(str, args)],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Result(p.returncode, p.stdout, p.stderr)


def _env(tmp: Path, endpoint: str, offline: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_ENDPOINT=endpoint, HF_HOME=str(tmp / "hf-home"), PYTHONPATH=str(ROOT))
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    return env


def _fetch(env: dict[str, str], rev: str, out: Path, *files: str) -> Result:
    return _audit(
        env,
        "fetch-hf",
        f"hf://datasets/acme/board@{rev}",
        "--files",
        *(files or FILES),
        "--optional",
        ".source_hash",
        "--out",
        out,
    )


def _one_line(res: Result, kind: str) -> None:
    assert res.code == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(f"error[{kind}]:"), res.stderr


def test_resolve_prints_the_commit_a_tag_names(tmp_path: Path, repo: Repo) -> None:
    with Hub(repo) as hub:
        res = _audit(_env(tmp_path, hub.endpoint), "resolve", "hf://datasets/acme/board@v1")
    assert res.code == 0, res.stderr
    assert res.stdout.strip() == f"hf://datasets/acme/board@{C1}"


def test_a_tag_is_refused_by_the_fetch_before_any_request(tmp_path: Path, repo: Repo) -> None:
    with Hub(repo) as hub:
        res = _fetch(_env(tmp_path, hub.endpoint), "v1", tmp_path / "b")
        assert hub.requests == []
    _one_line(res, "unpinned")
    assert "python -m audit resolve hf://datasets/acme/board@v1" in res.stderr
    assert not (tmp_path / "b").exists()


def test_fetch_checks_each_sha256_against_the_hub_and_the_lock_records_it(
    tmp_path: Path, repo: Repo, demo_bundle: Path
) -> None:
    with Hub(repo) as hub:
        res = _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "b")
        assert any(r.startswith("POST /api/datasets/acme/board/paths-info/") for r in hub.requests)
    assert res.code == 0, res.stderr
    record = json.loads((tmp_path / "b" / "hf-source.json").read_text())
    assert record["repo"] == "acme/board" and record["commit"] == C1
    assert record["checked_against"] == "hub"
    for name in FILES:
        want = hashlib.sha256((demo_bundle / name).read_bytes()).hexdigest()
        assert record["files"][name]["sha256"] == want
        assert record["files"][name]["hub"] == {
            "kind": "lfs_sha256",
            "value": want,
            "size": (demo_bundle / name).stat().st_size,
        }
        assert (tmp_path / "b" / name).read_bytes() == (demo_bundle / name).read_bytes()
    assert ".source_hash" not in record["files"]  # optional, and not at this commit

    prereg = ROOT / "prereg" / "demo.yaml"
    lock = _audit(
        _env(tmp_path, "http://127.0.0.1:9", offline=True),
        "lock",
        "--kind",
        "leaderboard",
        "--prereg",
        prereg,
        "--expected-blake3",
        file_blake3(prereg),
        "--bundle",
        tmp_path / "b",
        "--out-dir",
        tmp_path / "lock",
        "--events",
        tmp_path / "events.json",
    )
    assert lock.code == 0, lock.stderr
    source = json.loads((tmp_path / "lock" / "lock.json").read_text())["source"]
    assert source["repo"] == "acme/board" and source["commit"] == C1
    assert (
        source["files"]["instances.parquet"]["sha256"]
        == record["files"]["instances.parquet"]["sha256"]
    )
    events = json.loads((tmp_path / "events.json").read_text())["records"]
    fetched = [e for e in events if e["event"] == "bundle_fetched"]
    assert len(fetched) == 1
    assert fetched[0]["repo"] == "acme/board" and fetched[0]["commit"] == C1
    sha = record["files"]["leaderboard.parquet"]["sha256"]
    assert fetched[0]["files"]["leaderboard.parquet"]["sha256"] == sha


def test_a_file_whose_bytes_differ_from_the_hub_record_is_refused(
    tmp_path: Path, repo: Repo
) -> None:
    repo.lie["instances.parquet"] = "0" * 64
    with Hub(repo) as hub:
        res = _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "b")
    _one_line(res, "hash_mismatch")
    assert "instances.parquet" in res.stderr and "0" * 64 in res.stderr
    assert not (tmp_path / "b").exists()


def test_a_file_the_commit_lacks_is_refused(tmp_path: Path, repo: Repo) -> None:
    with Hub(repo) as hub:
        res = _fetch(_env(tmp_path, hub.endpoint), C2, tmp_path / "b")
    _one_line(res, "missing_file")
    assert not (tmp_path / "b").exists()


def test_offline_from_a_populated_cache_with_no_request(tmp_path: Path, repo: Repo) -> None:
    with Hub(repo) as hub:
        assert _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "online").code == 0
        before = len(hub.requests)
        res = _fetch(_env(tmp_path, hub.endpoint, offline=True), C1, tmp_path / "offline")
        assert len(hub.requests) == before  # not one request
    assert res.code == 0, res.stderr
    on = json.loads((tmp_path / "online" / "hf-source.json").read_text())
    off = json.loads((tmp_path / "offline" / "hf-source.json").read_text())
    assert off["checked_against"] == "cache"
    assert {n: f["sha256"] for n, f in off["files"].items()} == {
        n: f["sha256"] for n, f in on["files"].items()
    }


def test_offline_refuses_a_cached_file_changed_after_download(tmp_path: Path, repo: Repo) -> None:
    with Hub(repo) as hub:
        assert _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "online").code == 0
    blobs = list((tmp_path / "hf-home").rglob("blobs/*"))
    sha = json.loads((tmp_path / "online" / "hf-source.json").read_text())["files"][
        "instances.parquet"
    ]["sha256"]
    blob = next(b for b in blobs if b.name == sha)  # the cache names the blob by its ETag
    blob.write_bytes(blob.read_bytes() + b"x")
    res = _fetch(_env(tmp_path, "http://127.0.0.1:9", offline=True), C1, tmp_path / "off")
    _one_line(res, "hash_mismatch")
    assert not (tmp_path / "off").exists()


def test_offline_with_an_empty_cache_is_one_line(tmp_path: Path) -> None:
    res = _fetch(_env(tmp_path, "http://127.0.0.1:9", offline=True), C1, tmp_path / "b")
    _one_line(res, "missing_file")


def test_the_lock_refuses_a_fetched_file_changed_afterwards(tmp_path: Path, repo: Repo) -> None:
    with Hub(repo) as hub:
        assert _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "b").code == 0
    bundle = tmp_path / "copy"
    shutil.copytree(tmp_path / "b", bundle)
    other = ROOT / "prereg" / "demo.yaml"
    (bundle / "leaderboard.parquet").write_bytes((bundle / "instances.parquet").read_bytes())
    res = _audit(
        _env(tmp_path, "http://127.0.0.1:9", offline=True),
        "lock",
        "--kind",
        "leaderboard",
        "--prereg",
        other,
        "--expected-blake3",
        file_blake3(other),
        "--bundle",
        bundle,
        "--out-dir",
        tmp_path / "lock",
        "--events",
        tmp_path / "events.json",
    )
    _one_line(res, "hash_mismatch")
    assert not (tmp_path / "lock").exists() and not (tmp_path / "events.json").exists()


def _run_log(p) -> str:
    """The log file Snakemake names at the end of a run ("Complete log(s): PATH")."""
    found = re.findall(r"Complete log\(s\): (\S+)", p.stdout + p.stderr)
    assert found, (p.stdout + p.stderr)[-3000:]
    return Path(found[-1]).read_text(encoding="utf-8", errors="replace")


@pytest.mark.slow
def test_the_workflow_fetches_before_the_lock_and_reruns_offline(
    tmp_path: Path, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import run_dag

    for k in [k for k in os.environ if k.startswith("HF_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    target = "results/hf/lock/lock.json"
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    config = ["--config", f"bundle=hf://datasets/acme/board@{C1}", "arm=hf", prereg]
    with Hub(repo) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        p = run_dag(tmp_path / "online", target, *config)
        # Only the fetch and the lock are asked for; the workflow's closing summary (the
        # census of a whole run) is then absent, so the exit status is not the measure:
        # Snakemake's own account, in the run's log file (the terminal shows stages only).
        assert "2 of 2 steps (100%) done" in _run_log(p), p.stderr[-3000:]
        refused = run_dag(
            tmp_path / "tag", target, "--config", "bundle=hf://datasets/acme/board@v1", prereg
        )
        n = len(hub.requests)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        q = run_dag(tmp_path / "offline", target, *config)
        assert len(hub.requests) == n  # the offline run asked nothing of the Hub
    assert "2 of 2 steps (100%) done" in _run_log(q), q.stderr[-3000:]
    for work in ("online", "offline"):
        lock = json.loads((tmp_path / work / target).read_text())
        assert lock["source"]["commit"] == C1 and lock["source"]["repo"] == "acme/board"
    assert refused.returncode == 2
    assert "error[unpinned]:" in refused.stderr
    assert not (tmp_path / "tag" / "results").exists()


def test_a_file_the_hub_declares_past_the_bound_is_never_downloaded(
    tmp_path: Path, repo: Repo
) -> None:
    """The Hub's record is asked first; a size over MAX_FILE refuses the fetch before any
    download (nothing lands in the cache either)."""
    from audit.bundles.hf import MAX_FILE

    repo.sizes["instances.parquet"] = MAX_FILE + 1
    with Hub(repo) as hub:
        res = _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "b")
    _one_line(res, "too_large")
    assert "instances.parquet" in res.stderr and str(MAX_FILE + 1) in res.stderr
    assert not (tmp_path / "b").exists()
    cached = list((tmp_path / "hf-home").rglob("*.parquet"))
    assert cached == [], cached


def test_a_fetched_decompression_bomb_is_refused_before_the_bundle_is_written(
    tmp_path: Path, repo: Repo
) -> None:
    """A 2 MiB parquet file whose page inflates to 512 MiB (tests/parquet_bomb.py), served
    with its true size and sha256: refused from its page headers, no bundle written."""
    from tests.parquet_bomb import bomb

    bomb(tmp_path / "bomb.parquet", 64 << 20)
    repo.commits[C1]["instances.parquet"] = (tmp_path / "bomb.parquet").read_bytes()
    with Hub(repo) as hub:
        res = _fetch(_env(tmp_path, hub.endpoint), C1, tmp_path / "b")
    _one_line(res, "too_large")
    assert "instances.parquet" in res.stderr and "declare 536870912 bytes" in res.stderr
    assert not (tmp_path / "b").exists()


@pytest.mark.slow
def test_a_bad_value_in_a_fetched_bundle_is_refused_by_the_lock_and_a_good_commit_locks(
    tmp_path: Path, repo: Repo, demo_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Hub bundle is not there while the workflow is read, so preflight cannot judge its
    values; the lock used to hash it unjudged (encodings only) and the arm was locked on
    it. Commit C3 serves the demo bundle with two values of a single_value source (the
    case of tests/test_preflight_values.py, whose line is written there by hand and
    checked against both contestants): the lock refuses it with that line, exit 2, and
    writes no lock or events. The run naming the good commit C1 then fetches again and
    locks the arm (not arm_locked; preflight does not judge the bad copy left on disk)."""
    from tests.conftest import run_dag
    from tests.test_preflight_values import CASES

    breaks, kind, file, words = CASES["two values of a single_value source"]
    bad = tmp_path / "bad"
    shutil.copytree(demo_bundle, bad)
    breaks(bad)
    c3 = "3d" * 20
    repo.commits[c3] = {name: (bad / name).read_bytes() for name in FILES}
    for k in [k for k in os.environ if k.startswith("HF_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    target = "results/hf/lock/lock.json"
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    work = tmp_path / "work"
    arm = work / "results" / "hf"
    with Hub(repo) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        config = ["--config", "arm=hf", prereg]
        p = run_dag(work, target, *config, f"bundle=hf://datasets/acme/board@{c3}")
        assert p.returncode == 2, p.stderr[-3000:]
        lines = {x for x in p.stderr.splitlines() if x.startswith("error[")}
        assert lines == {f"error[{kind}]: results/hf/bundle/hf/{file}: {words}"}, p.stderr[-3000:]
        assert (arm / "bundle" / "hf" / file).read_bytes() == (bad / file).read_bytes()
        assert not (arm / "lock").exists() and not (arm / "events").exists()
        q = run_dag(work, target, *config, f"bundle=hf://datasets/acme/board@{C1}")
    assert q.returncode == 0, q.stderr[-3000:]
    lock = json.loads((work / target).read_text())
    assert lock["source"]["commit"] == C1
    assert (arm / "bundle" / "hf" / file).read_bytes() == (demo_bundle / file).read_bytes()


def _files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.mark.slow
def test_the_workflow_ends_a_fetch_of_a_commit_lacking_a_file_with_its_line_and_exit_2(
    tmp_path: Path, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commit C2 holds only a card: fetch_hf refuses it (missing_file, the fetch's line of
    test_a_file_the_commit_lacks_is_refused). The run used to end with Snakemake's exit 1
    (missing_file was not an input class of audit/core/run_end.py); now the line and exit
    2. Left on disk, as docs/refusals.md says: the fetch's log only (no bundle, no lock)."""
    from tests.conftest import run_dag

    for k in [k for k in os.environ if k.startswith("HF_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    work = tmp_path / "work"
    with Hub(repo) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        config = ["--config", "arm=hf", prereg, f"bundle=hf://datasets/acme/board@{C2}"]
        p = run_dag(work, "results/hf/lock/lock.json", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    lines = {x for x in p.stderr.splitlines() if x.startswith("error[")}
    line = f"error[missing_file]: hf://datasets/acme/board@{C2}:leaderboard.parquet: not in the"
    assert lines == {line + " dataset at this commit"}, p.stderr[-3000:]
    assert p.stderr.splitlines()[-1] == line + " dataset at this commit"  # the run's last word
    assert _files_under(work / "results" / "hf") == ["logs/fetch_hf.log"]


@pytest.mark.slow
def test_the_workflow_ends_a_lock_refusing_a_fetched_file_changed_with_its_line_and_exit_2(
    tmp_path: Path, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fetched file changed after the fetch (its bytes replaced by the other table's):
    the lock refuses it against hf-source.json (hash_mismatch, the lock's line of
    test_the_lock_refuses_a_fetched_file_changed_afterwards). The run used to end with
    Snakemake's exit 1; now the line and exit 2, no lock written."""
    from tests.conftest import run_dag

    for k in [k for k in os.environ if k.startswith("HF_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    work = tmp_path / "work"
    fetched = work / "results" / "hf" / "bundle" / "hf"
    config = ["--config", "arm=hf", prereg, f"bundle=hf://datasets/acme/board@{C1}"]
    with Hub(repo) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.endpoint)
        p = run_dag(work, str(fetched.relative_to(work) / "hf-source.json"), *config)
        assert p.returncode == 0, p.stderr[-3000:]
        lb = fetched / "leaderboard.parquet"
        lb.write_bytes((fetched / "instances.parquet").read_bytes())
        q = run_dag(work, "results/hf/lock/lock.json", *config)
    assert q.returncode == 2, q.stderr[-3000:]
    lines = {x for x in q.stderr.splitlines() if x.startswith("error[")}
    assert len(lines) == 1, q.stderr[-3000:]
    (line,) = lines
    assert line.startswith("error[hash_mismatch]: results/hf/bundle/hf/leaderboard.parquet: ")
    assert q.stderr.splitlines()[-1] == line  # the run's last word
    assert not (work / "results" / "hf" / "lock").exists()
