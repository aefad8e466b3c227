"""A write that finds the disk full is one line, exit 2, and the same command resumes.

The full disk is the kernel's own: /dev/full answers every write with ENOSPC.
Each test points the temporary file that write_atomic (audit/files.py) writes
through at /dev/full, runs a real command line in this process, then frees the
"disk" (the patch undone) and runs the very same argv again.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

import audit.files
from audit.__main__ import main as audit_main
from audit.files import write_atomic

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    real = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        fd, name = real(*args, **kwargs)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), name

    monkeypatch.setattr(audit.files.tempfile, "mkstemp", mkstemp)


def _runs(tmp_path: Path) -> list[str]:
    dirs = []
    for n in (1, 2):
        d = tmp_path / f"run{n}"
        d.mkdir()
        (d / "cells.csv").write_bytes(b"a\n1\n")
        dirs.append(str(d))
    return dirs


def test_same_runs_on_a_full_disk_is_one_line_then_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    out = tmp_path / "runs-identical.json"
    argv = ["same-runs", *_runs(tmp_path), "--out", str(out)]
    _full_disk(monkeypatch)
    assert audit_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error[disk_full]: {out}: No space left on device"), err
    assert not out.exists() and list(tmp_path.glob(".runs-identical*")) == []  # nothing left
    monkeypatch.undo()  # space freed
    assert audit_main(argv) == 0
    assert json.loads(out.read_text())["identical"] is True


def test_a_control_on_a_full_disk_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    import controls.__main__ as controls_main

    out = tmp_path / "verdict.json"
    # the control's work replaced by one real write: the handler is what is tested
    monkeypatch.setattr(controls_main, "_run", lambda args: write_atomic(out, "{}\n") or 0)
    _full_disk(monkeypatch)
    monkeypatch.setattr(controls_main, "_parser", lambda: _Parser())
    assert controls_main.main([]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"error[disk_full]: {out}: No space left on device; free space, run the same command again\n"
    )
    assert not out.exists()


class _Parser:
    """Stands in for the control's argument parser (its arguments are not under test)."""

    def parse_args(self, argv):
        return None


def test_another_os_error_is_not_called_a_full_disk(tmp_path: Path) -> None:
    from audit.errors import disk_full

    assert disk_full(PermissionError(13, "Permission denied", str(tmp_path))) is None
    full = disk_full(OSError(28, "No space left on device", "x.csv"))
    assert full is not None and full.kind == "disk_full" and full.status == 2
