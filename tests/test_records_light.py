"""The report and the seal, last on every arm and one after the other, read the census
and agreement records (audit/cells/summary.py, audit/trials/summary.py,
audit/core/agreement.py), never a dataframe: importing them does not import polars
(about 0.14 s of each process, before this split)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

READERS = [
    "audit.report.leaderboard",
    "audit.report.trials",
    "audit.seal.annex",
    "audit.seal.certificate",
    "audit.cells.summary",
    "audit.trials.summary",
    "audit.core.agreement",
]


def test_the_record_readers_import_no_dataframe_library():
    script = (
        f"import importlib, sys\nfor m in {READERS!r}:\n    importlib.import_module(m)\n"
        "print('polars' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "False"


def test_the_writers_still_use_it():  # the check above can see polars when it is there
    script = "import sys, audit.cells.census\nprint('polars' in sys.modules)\n"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == "True"
