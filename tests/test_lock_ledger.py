"""The lock refuses an edited prereg; the ledger's chain shows any tampering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.files import file_blake3
from audit.seal import ledger
from tests.conftest import ROOT, run_audit


def _lock(tmp: Path, prereg: Path, bundle: Path, expected: str):
    return run_audit(
        "lock",
        "--kind",
        "leaderboard",
        "--prereg",
        prereg,
        "--expected-blake3",
        expected,
        "--bundle",
        bundle,
        "--out-dir",
        tmp / "lock",
        "--events",
        tmp / "events" / "lock.json",
    )


def test_lock_writes_hashes_and_starts_the_chain(tmp_path: Path, demo_bundle: Path) -> None:
    prereg = ROOT / "prereg" / "demo.yaml"
    res = _lock(tmp_path, prereg, demo_bundle, file_blake3(prereg))
    assert res.code == 0, res.stderr
    lock = json.loads((tmp_path / "lock" / "lock.json").read_text())
    assert lock["bundle"]["leaderboard"]["rows"] == 4
    assert lock["bundle"]["leaderboard"]["columns"] == 14
    # the content in lock.json; the bytes as shipped (writer-dependent) in files.json
    assert "blake3" not in lock["bundle"]["instances"]
    files = json.loads((tmp_path / "lock" / "files.json").read_text())
    assert files["instances"]["blake3"] == file_blake3(demo_bundle / "instances.parquet")
    assert (tmp_path / "lock" / "prereg.yaml").read_bytes() == prereg.read_bytes()
    records = ledger.read_events(tmp_path / "events" / "lock.json")
    assert [x["event"] for x in records] == ["prereg_locked", "bundle_hashed", "bundle_hashed"]
    lines = ledger.chain(records)
    assert lines[0]["prev"] == "0" * 64 and lines[1]["prev"] == lines[0]["hash"]
    (tmp_path / "ledger.jsonl").write_text(ledger.text(lines))
    assert ledger.verify(tmp_path / "ledger.jsonl") == []


def test_an_edited_prereg_stops_at_the_lock_naming_both_hashes(
    tmp_path: Path, demo_bundle: Path
) -> None:
    original = ROOT / "prereg" / "demo.yaml"
    edited = tmp_path / "demo.yaml"
    text = original.read_text()
    edited.write_text(text.replace("null_draws: 200", "null_draws: 201"))  # one character
    expected = file_blake3(original)
    actual = file_blake3(edited)
    res = _lock(tmp_path, edited, demo_bundle, expected)
    assert res.code == 2
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert expected in res.stderr and actual in res.stderr
    assert res.stderr.startswith("error[prereg_changed]:")
    assert not (tmp_path / "lock").exists() and not (tmp_path / "events").exists()


def test_lock_refuses_a_missing_bundle_file(tmp_path: Path, demo_bundle: Path) -> None:
    prereg = ROOT / "prereg" / "demo.yaml"
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "leaderboard.parquet").write_bytes((demo_bundle / "leaderboard.parquet").read_bytes())
    res = _lock(tmp_path, prereg, bundle, file_blake3(prereg))
    assert res.code == 2
    assert (
        res.stderr.strip() == f"error[missing_file]: {bundle / 'instances.parquet'}: no such file"
    )
    assert not (tmp_path / "events").exists()


@pytest.fixture
def chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for n in range(4):
        Path(f"f{n}.txt").write_text(f"file {n}\n")
    ledger.start("ledger.jsonl", [("prereg_locked", "f0.txt", {})])
    for n in range(1, 4):
        ledger.append("ledger.jsonl", "output_recorded", f"f{n}.txt")
    assert ledger.verify("ledger.jsonl") == []
    return tmp_path / "ledger.jsonl"


def _lines(p: Path) -> list[str]:
    return p.read_text().splitlines(keepends=True)


def test_ledger_detects_an_edited_line(chain: Path) -> None:
    lines = _lines(chain)
    lines[1] = lines[1].replace('"output_recorded"', '"amendment"')
    chain.write_text("".join(lines))
    problems = ledger.verify(chain)
    assert any(":2: hash does not match" in p for p in problems)


def test_ledger_detects_a_deleted_line(chain: Path) -> None:
    lines = _lines(chain)
    del lines[1]
    chain.write_text("".join(lines))
    assert any(":2: seq is 3, expected 2" in p for p in ledger.verify(chain))


def test_ledger_detects_two_lines_swapped(chain: Path) -> None:
    lines = _lines(chain)
    lines[1], lines[2] = lines[2], lines[1]
    chain.write_text("".join(lines))
    problems = ledger.verify(chain)
    assert any(":2: prev does not match" in p for p in problems)


def test_ledger_detects_a_changed_subject(chain: Path) -> None:
    (chain.parent / "f2.txt").write_text("changed\n")
    assert ledger.verify(chain) == [f"{chain}:3: subject f2.txt changed since it was recorded"]


def test_ledger_detects_a_cut_tail_against_the_anchored_head(chain: Path) -> None:
    anchored = ledger.head(chain)
    chain.write_text("".join(_lines(chain)[:-1]))
    assert ledger.verify(chain) == []  # the chain that is left holds...
    problems = ledger.verify(chain, expected_head=anchored)
    assert len(problems) == 1 and "tail cut" in problems[0]  # ...but not against the head
