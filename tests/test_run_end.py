"""The end of a run (audit/core/run_end.py): no timer left to hold the process, and what
the workflow's read built frozen out of the collector's way."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path

from audit.core.run_end import release_timers
from tests.conftest import ROOT


def test_pending_timers_are_cancelled_and_their_threads_end():
    fired = []
    timers = [threading.Timer(60, fired.append, args=(k,)) for k in range(2)]
    for t in timers:
        t.start()
    assert release_timers() == 2
    for t in timers:
        t.join(5)  # a cancelled timer's thread ends at once; a pending one would wait 60 s
        assert not t.is_alive()
    assert fired == []


def test_other_threads_are_left_alone():
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)
    worker.start()
    try:
        assert release_timers() == 0
        assert worker.is_alive()
    finally:
        stop.set()
        worker.join()


def test_the_workflow_read_is_frozen_out_of_the_collectors_way(tmp_path: Path):
    # Snakemake run in a process whose last exit handler prints how many objects are
    # frozen: none unless something called gc.freeze(); the workflow's read does, so
    # at least Snakemake's own modules are (counted apart: `import snakemake.cli` alone
    # leaves 76,009 objects tracked, len(gc.get_objects()); the demo's read froze 134,620)
    (tmp_path / "config").mkdir()
    shutil.copyfile(ROOT / "config" / "config.yaml", tmp_path / "config" / "config.yaml")
    argv = ["snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path)]
    argv += ["--cores", "1", "-n", "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}"]
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen', gc.get_freeze_count()))\n"
        f"sys.argv = {argv!r}\n"
        "from snakemake.cli import main\n"
        "main()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    frozen = int(p.stdout.split("frozen")[-1])
    assert frozen > 50_000
