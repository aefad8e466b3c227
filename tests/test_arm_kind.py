"""The arm's kind is decided once, by the locked prereg (audit/kinds/arm_kind.py).

Expected kinds read off the shipped preregs by eye: every trials prereg starts
with `kind: trials`, and no leaderboard prereg has a `kind` key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from audit.errors import AuditError
from audit.kinds.arm_kind import load_checked

ROOT = Path(__file__).resolve().parent.parent
TRIALS = ["benchflow-sample", "skillsbench-registry", "terminal-bench-sample"]
LEADERBOARD = ["demo", "openhands-index", "synthetic"]


@pytest.mark.parametrize("name", TRIALS + LEADERBOARD)
def test_the_shipped_preregs_say_their_own_kind(name: str) -> None:
    kind, doc = load_checked(ROOT / "prereg" / f"{name}.yaml")
    assert kind.name == ("trials" if name in TRIALS else "leaderboard")
    assert doc["name"]


@pytest.mark.parametrize("value", ["leaderboard", "cells", 1, True, ["trials"]])
def test_any_other_kind_is_refused(tmp_path: Path, value) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["kind"] = value
    p = tmp_path / "prereg.yaml"
    p.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(AuditError) as err:
        load_checked(p)
    assert err.value.kind == "bad_prereg"
    assert "is not a kind" in err.value.detail


def test_a_trials_prereg_is_checked_by_the_trials_rules(tmp_path: Path) -> None:
    # a trials prereg without its source is refused by the trials schema (the
    # leaderboard schema would name other keys first: bundle, columns, ...)
    doc = yaml.safe_load((ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"))
    del doc["source"]
    p = tmp_path / "prereg.yaml"
    p.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(AuditError) as err:
        load_checked(p)
    assert "source" in err.value.detail


def test_no_config_names_a_kind() -> None:
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    assert "kind" not in schema["properties"]
    for f in (ROOT / "config").glob("*.yaml"):
        assert "kind" not in (yaml.safe_load(f.read_text()) or {}), f.name


def test_one_lock_command_for_both_kinds(tmp_path: Path) -> None:
    # `audit lock` takes a trials prereg too (there is no lock-trials): its refusal is
    # the trials lock's own (a registry bundle folder without the task table), and
    # --assembled on a leaderboard prereg is refused by name; a prereg of the other
    # kind than --kind says is refused by that kind's own checks, nothing written.
    import subprocess
    import sys

    from audit.files import file_blake3

    def lock(prereg: Path, *extra: str, kind: str = "leaderboard") -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "audit",
                "lock",
                "--kind",
                kind,
                "--prereg",
                str(prereg),
                "--expected-blake3",
                file_blake3(prereg),
                "--bundle",
                str(tmp_path / "empty"),
                "--out-dir",
                str(tmp_path / "lock"),
                "--events",
                str(tmp_path / "ev.json"),
                *extra,
            ],
            cwd=ROOT,
            check=False,
            capture_output=True,
            text=True,
        )

    (tmp_path / "empty").mkdir()
    p = lock(ROOT / "prereg" / "skillsbench-registry.yaml", kind="trials")
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("error[missing_file]:"), p.stderr
    assert "registry.parquet" in p.stderr  # the task table the trials prereg names
    p = lock(ROOT / "prereg" / "demo.yaml", "--assembled", str(tmp_path))
    assert p.returncode == 2
    assert "--assembled is for a trials arm only" in p.stderr
    assert not (tmp_path / "lock").exists()
    for prereg, kind in (("skillsbench-registry", "leaderboard"), ("demo", "trials")):
        p = lock(ROOT / "prereg" / f"{prereg}.yaml", kind=kind)
        assert p.returncode == 2 and p.stderr.startswith("error[bad_prereg]:"), p.stderr
        assert not (tmp_path / "lock").exists()
