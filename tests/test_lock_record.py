"""The lock's record (audit/seal/lock_record.py): lock.json and files.json read once into
frozen records. The expected values are written out by hand from the documents beside
them, and, for the lock's own output on the demo bundle, from the demo's hand working
(4 leaderboard rows of 14 columns, 36 instance rows of 6: audit/bundles/demo.py) and
blake3 computed by the files' own hasher over the bytes the lock read.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from audit.errors import AuditError
from audit.files import file_blake3
from audit.seal.lock_record import File, Jobs, Table, read_files, read_lock
from tests.conftest import ROOT, run_audit

LOCK = {
    "bundle": {
        "trials": {"columns": 44, "content_digest": "c" * 64, "file": "trials.parquet", "rows": 55},
        "leaderboard": {"columns": 7, "content_digest": "d" * 64, "file": "lb.csv", "rows": 4},
    },
    "format": "secondseat-lock-v1",
    "jobs": {"root": "jobs", "files": [{"path": "a/result.json", "blake3": "e" * 64}]},
    "amends": {"arm": "parent", "head": "f" * 64},
    "publisher_hash": {"status": "matches"},
    "prereg": {"blake3": "a" * 64, "name": "arm-x"},
}


def test_a_lock_json_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "lock.json"
    path.write_text(json.dumps(LOCK))
    lock = read_lock(path)
    assert (lock.format, lock.prereg_name, lock.prereg_blake3) == (
        "secondseat-lock-v1",
        "arm-x",
        "a" * 64,
    )
    assert list(lock.bundle) == ["trials", "leaderboard"]  # the file's order
    assert lock.bundle["leaderboard"] == Table("leaderboard", "lb.csv", 4, 7, "d" * 64)
    assert lock.jobs == Jobs("jobs", ({"path": "a/result.json", "blake3": "e" * 64},))
    assert lock.amends == ("parent", "f" * 64)
    assert dict(lock.extra) == {"publisher_hash": {"status": "matches"}}
    with pytest.raises(dataclasses.FrozenInstanceError):
        lock.prereg_blake3 = "b" * 64  # type: ignore[misc]
    with pytest.raises(TypeError):
        lock.bundle["x"] = lock.bundle["trials"]  # type: ignore[index]


def test_a_lock_without_jobs_or_parent(tmp_path: Path) -> None:
    path = tmp_path / "lock.json"
    doc = {k: v for k, v in LOCK.items() if k not in ("jobs", "amends", "publisher_hash")}
    path.write_text(json.dumps(doc))
    lock = read_lock(path)
    assert lock.jobs is None and lock.amends is None and dict(lock.extra) == {}


@pytest.mark.parametrize(
    "broken",
    [
        "[]",
        "{}",
        json.dumps({**LOCK, "prereg": {"name": "x"}}),
        json.dumps({**LOCK, "bundle": {"t": {"file": "t.parquet", "rows": "many"}}}),
        json.dumps({**LOCK, "jobs": {"files": []}}),
        "{not json",
    ],
)
def test_a_malformed_lock_json_is_unreadable(tmp_path: Path, broken: str) -> None:
    path = tmp_path / "lock.json"
    path.write_text(broken)
    with pytest.raises(AuditError) as e:
        read_lock(path)
    assert (e.value.kind, e.value.path) == ("unreadable", str(path))


def test_missing_lock_files(tmp_path: Path) -> None:
    for read in (read_lock, read_files):
        with pytest.raises(AuditError) as e:
            read(tmp_path / "none.json")
        assert e.value.kind == "missing_file"


def test_a_files_json_by_hand_and_malformed(tmp_path: Path) -> None:
    path = tmp_path / "files.json"
    entry = {"blake3": "1" * 64, "bytes": 1784, "file": "instances.parquet", "sha256": "2" * 64}
    path.write_text(json.dumps({"instances": entry}))
    assert dict(read_files(path)) == {
        "instances": File("instances", "instances.parquet", "1" * 64, "2" * 64, 1784)
    }
    path.write_text(json.dumps({"instances": {**entry, "sha256": None} | {"bytes": "x"}}))
    with pytest.raises(AuditError) as e:
        read_files(path)
    assert e.value.kind == "unreadable"


def test_the_locks_own_files_read_back(demo_bundle: Path, tmp_path: Path) -> None:
    prereg = ROOT / "prereg" / "demo.yaml"
    out = tmp_path / "lock"
    r = run_audit(
        "lock", "--prereg", prereg, "--expected-blake3", file_blake3(prereg), "--kind", "leaderboard",
        "--bundle", demo_bundle, "--out-dir", out, "--events", tmp_path / "events.json",
    )  # fmt: skip
    assert r.code == 0, r.stderr
    lock = read_lock(out / "lock.json")
    assert lock.prereg_name == "demo" and lock.prereg_blake3 == file_blake3(prereg)
    assert (lock.bundle["leaderboard"].rows, lock.bundle["leaderboard"].columns) == (4, 14)
    assert (lock.bundle["instances"].rows, lock.bundle["instances"].columns) == (36, 6)
    assert lock.jobs is None and lock.amends is None
    files = read_files(out / "files.json")
    assert sorted(files) == ["instances", "leaderboard"]
    for role, f in files.items():
        assert f.blake3 == file_blake3(demo_bundle / f.file), role
        assert f.bytes == (demo_bundle / f.file).stat().st_size


def test_a_second_seat_checks_the_first_seats_lock_record(tmp_path: Path) -> None:
    """The lock's check of a second seat's tables against the first seat's lock.json
    (audit/lock/cells.py, trials.py), read through the record: the same digests pass; a
    digest that differs, a table the first seat did not lock, or other jobs files are
    bundle_changed naming what was locked (None: nothing). Digests written by hand."""
    from audit.lock import cells, trials

    path = tmp_path / "lock.json"
    path.write_text(json.dumps(LOCK))
    same = {
        "trials": {"file": "trials.parquet", "content_digest": "c" * 64},
        "leaderboard": {"file": "lb.csv", "content_digest": "d" * 64},
    }
    jobs = {"root": "jobs", "files": [{"path": "a/result.json", "blake3": "e" * 64}]}
    cells._check_against(str(path), same, "b")
    trials._check_against(str(path), {"bundle": same, "jobs": jobs}, "b")
    other = {**same, "leaderboard": {"file": "lb.csv", "content_digest": "0" * 64}}
    with pytest.raises(AuditError) as e:
        cells._check_against(str(path), other, "b")
    assert (e.value.kind, e.value.path) == ("bundle_changed", "b/lb.csv")
    assert e.value.detail == f"content digest is {'0' * 64} but {path} locked {'d' * 64}"
    unlocked = {**same, "registry": {"file": "r.parquet", "content_digest": "1" * 64}}
    with pytest.raises(AuditError) as e:
        trials._check_against(str(path), {"bundle": unlocked}, "b")
    assert e.value.path == "b/r.parquet" and e.value.detail.endswith("locked None")
    moved = {"root": "jobs", "files": [{"path": "a/result.json", "blake3": "0" * 64}]}
    with pytest.raises(AuditError) as e:
        trials._check_against(str(path), {"bundle": same, "jobs": moved}, "b")
    assert (e.value.kind, e.value.path) == ("bundle_changed", "b")


def test_preflight_checks_a_second_seats_jobs_files_as_the_lock_does(tmp_path: Path) -> None:
    """audit/preflight.py check_seat_bundle, before any job, on a trials source's jobs
    folder: the files the first seat's lock lists (path, blake3 by file_blake3) pass;
    one byte more in a file is the lock's own bundle_changed line, naming the folder.
    The tables are not there (a bundle a rule builds): left to the lock."""
    from audit.files import file_blake3
    from audit.preflight import check_seat_bundle

    jobs = tmp_path / "bundle" / "jobs"
    (jobs / "a").mkdir(parents=True)
    (jobs / "a" / "result.json").write_text("{}", encoding="utf-8")
    doc = json.loads(json.dumps(LOCK))
    doc["jobs"]["files"][0]["blake3"] = file_blake3(jobs / "a" / "result.json")
    (tmp_path / "annex" / "lock").mkdir(parents=True)
    lock = tmp_path / "annex" / "lock" / "lock.json"
    lock.write_text(json.dumps(doc))
    roles = {"trials": (str(tmp_path / "nowhere" / "trials.parquet"), None)}
    check_seat_bundle(str(lock), roles, ("jobs", str(jobs)))
    check_seat_bundle(None, roles, ("jobs", str(jobs)))  # a first seat: nothing to compare
    (jobs / "a" / "result.json").write_text("{} ", encoding="utf-8")
    with pytest.raises(AuditError) as e:
        check_seat_bundle(str(lock), roles, ("jobs", str(jobs)))
    assert (e.value.kind, e.value.path) == ("bundle_changed", str(jobs))
    assert e.value.detail == f"the jobs files differ from those {lock} locked"
