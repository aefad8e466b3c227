"""An arm holds one method: once it is locked, another prereg under its name is refused.

The arm demo is locked (the lock rule alone, in a temporary working folder);
the prereg is then edited and the config's blake3 updated to match, as a user
would to "fix" a method. Without the check, the lock rule runs again (its
input changed) and replaces the arm's lock and ledger.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

LOCK = "results/demo/lock/lock.json"


def _files(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under folder: its bytes and its modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_another_prereg_under_a_locked_arm_is_refused(tmp_path: Path) -> None:
    first = run_dag(tmp_path, LOCK, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert first.returncode == 0, first.stderr[-3000:]
    before = _files(tmp_path / "results" / "demo")
    assert "lock/lock.json" in before and "events/lock.json" in before

    edited = tmp_path / "demo-seed-8.yaml"
    edited.write_text((ROOT / "prereg" / "demo.yaml").read_text().replace("seed: 7", "seed: 8"))
    old, new = file_blake3(ROOT / "prereg" / "demo.yaml"), file_blake3(edited)
    assert old != new
    for target in (LOCK, "all"):  # the lock itself, and the whole run
        p = run_dag(tmp_path, target, "--config", f"prereg={edited}", f"prereg_blake3={new}")
        assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
        lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
        assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-2000:]
        assert lines[0].startswith(f"error[arm_locked]: {LOCK}: arm 'demo' is locked"), lines
        assert old in lines[0] and new in lines[0] and "new arm" in lines[0], lines
        assert _files(tmp_path / "results" / "demo") == before  # not a byte, not a time

    # The way forward the line names: the same change under a new arm name.
    amend = run_dag(
        tmp_path,
        "results/demo-amendment-1/lock/lock.json",
        "--config",
        f"prereg={edited}",
        f"prereg_blake3={new}",
        "arm=demo-amendment-1",
    )
    assert amend.returncode == 0, amend.stderr[-3000:]
    assert _files(tmp_path / "results" / "demo") == before
