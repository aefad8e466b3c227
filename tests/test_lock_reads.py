"""The lock opens the prereg file once: the bytes whose blake3 it checks are the bytes it
parses and writes to lock/prereg.yaml (audit/lock/shared.py). Before, one lock process
opened it four times (the kind, the blake3, the draft check, the schema) and a fifth to
copy it."""

from __future__ import annotations

import argparse
import builtins
import io
import os
import shutil
from pathlib import Path

import pytest

from audit.commands import lock as lock_command
from audit.errors import AuditError
from audit.files import file_blake3
from tests.conftest import ROOT


def _args(prereg: Path, expected: str, bundle: Path, tmp_path: Path) -> argparse.Namespace:
    return argparse.Namespace(
        prereg=str(prereg),
        expected_blake3=expected,
        kind="leaderboard",
        bundle=str(bundle),
        assembled=None,
        out_dir=str(tmp_path / "results" / "demo" / "lock"),
        results=str(tmp_path / "results"),
        events=str(tmp_path / "results" / "demo" / "events" / "lock.json"),
        expect_bundle=None,
        judged=False,
    )


def _count_opens(monkeypatch: pytest.MonkeyPatch, target: Path) -> list[str]:
    """Every open of ``target``, by os.open or io.open (Path.open, open)."""
    opened: list[str] = []
    real_os_open, real_io_open = os.open, io.open

    def os_open(path, *a, **k):
        if Path(path).resolve() == target:
            opened.append("os.open")
        return real_os_open(path, *a, **k)

    def io_open(path, *a, **k):
        if isinstance(path, str | os.PathLike) and Path(path).resolve() == target:
            opened.append("io.open")
        return real_io_open(path, *a, **k)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(io, "open", io_open)
    monkeypatch.setattr(builtins, "open", io_open)
    return opened


def test_one_lock_opens_the_prereg_once(
    tmp_path: Path, demo_bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prereg = tmp_path / "prereg.yaml"
    shutil.copyfile(ROOT / "prereg" / "demo.yaml", prereg)
    expected = file_blake3(prereg)
    opened = _count_opens(monkeypatch, prereg.resolve())
    assert lock_command.run(_args(prereg, expected, demo_bundle, tmp_path)) == 0
    assert len(opened) == 1, opened
    locked = tmp_path / "results" / "demo" / "lock" / "prereg.yaml"
    assert locked.read_bytes() == prereg.read_bytes()


def test_the_blake3_is_checked_before_the_yaml_is_read(tmp_path: Path, demo_bundle: Path) -> None:
    # not YAML at all, and not the expected blake3: prereg_changed, as before the YAML
    prereg = tmp_path / "prereg.yaml"
    prereg.write_bytes(b"{ not: [yaml\n")
    with pytest.raises(AuditError) as err:
        lock_command.run(_args(prereg, "0" * 64, demo_bundle, tmp_path))
    assert err.value.kind == "prereg_changed"
    assert not (tmp_path / "results").exists()


def test_a_prereg_past_the_bound_is_too_large_once_its_blake3_holds(
    tmp_path: Path, demo_bundle: Path
) -> None:
    # 256 KiB + 1 (audit/core/strict_yaml.py, MAX_BYTES): hashed whole, refused by size
    prereg = tmp_path / "prereg.yaml"
    prereg.write_bytes(b"#" * (256 * 1024) + b"\n")
    with pytest.raises(AuditError) as err:
        lock_command.run(_args(prereg, file_blake3(prereg), demo_bundle, tmp_path))
    assert err.value.kind == "too_large"
    assert not (tmp_path / "results").exists()
