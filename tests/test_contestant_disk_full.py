"""A contestant that finds the disk full says so in one line, exit 2, and the same command
resumes once space is freed.

The full disk is the kernel's own: /dev/full answers every write with ENOSPC. Each
contestant runs as its own process in its own environment, started through a few lines
that make every staging file it opens in its output folder (a hidden `.name...tmp`)
a handle on /dev/full; the file itself is created, so the contestant's own clean-up
runs as on a real full disk. Then the very same command runs with nothing patched, and
its outputs must be byte for byte those of a run that never saw a full disk.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import IMPLS, ROOT, impl_python

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")

# Run as `python -c FULL OUT -m impl_<name> ARGS...`: opens of a staging file under OUT
# give /dev/full, then the contestant's module runs as `python -m` would run it.
FULL = """
import os, runpy, sys
out = os.path.realpath(sys.argv[1])
real = os.open
def full_open(path, flags, mode=0o777, *, dir_fd=None):
    p = os.path.realpath(os.fsdecode(path))
    if flags & os.O_CREAT and os.path.dirname(p) == out and os.path.basename(p).startswith("."):
        os.close(real(path, flags, mode, dir_fd=dir_fd))  # the staging file exists, empty
        return real("/dev/full", os.O_WRONLY)
    return real(path, flags, mode, dir_fd=dir_fd)
os.open = full_open
sys.argv = [sys.argv[3], *sys.argv[4:]]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        argv, check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("impl", IMPLS)
def test_a_full_disk_is_one_line_and_the_same_command_resumes(
    impl: str, tmp_path: Path, impl_envs, demo_bundle: Path
) -> None:
    args = ["--prereg", str(ROOT / "prereg" / "demo.yaml"), "--bundle", str(demo_bundle)]
    clean = tmp_path / "clean"
    ran = _run([str(impl_python(impl)), "-m", f"impl_{impl}", *args, "--out", str(clean)])
    assert ran.returncode == 0, ran.stderr

    out = tmp_path / "out"
    out.mkdir()
    command = [str(impl_python(impl)), "-m", f"impl_{impl}", *args, "--out", str(out)]
    full = _run([str(impl_python(impl)), "-c", FULL, str(out), "-m", *command[2:]])
    assert full.returncode == 2, full.stderr[-2000:]
    assert full.stderr.count("\n") == 1 and "Traceback" not in full.stderr, full.stderr
    line = full.stderr.strip()
    assert line.startswith(f"error[disk_full]: {out}/"), line
    assert "No space left on device; free space, run the same command again" in line
    assert sorted(p.name for p in out.iterdir()) == []  # nothing half written, no staging file

    again = _run(command)  # space freed: the very same command
    assert again.returncode == 0, again.stderr
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(p.name for p in clean.iterdir()) and written
    for name in written:
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name
