"""The jobs after the last recompute run one after the other on every arm (agreement,
census, report, seal): what each imports is on the run's critical path.

The report and the seal read the census and agreement records
(audit/cells/summary.py, audit/trials/summary.py, audit/core/agreement.py), never a
dataframe: importing them does not import polars (about 0.14 s of each process,
before this split). The agreement reads only a prereg's kind: it does not import
jsonschema (about 0.06 s), which checking a document needs."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

READERS = [
    "audit.report.leaderboard",
    "audit.report.trials",
    "audit.seal.annex",
    "audit.report.certificate",
    "audit.cells.summary",
    "audit.trials.summary",
    "audit.core.agreement",
]


def _imports_after(script: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", script + "\nimport sys\nprint(' '.join(sorted(sys.modules)))\n"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return set(done.stdout.split())


def test_the_record_readers_import_no_dataframe_library():
    assert "polars" not in _imports_after(f"import {', '.join(READERS)}")


def test_the_leaderboard_report_draws_nothing():
    # its figures are drawn by a job of their own before the census
    # (audit/report/leaderboard_figures.py): the report, on every arm's last chain, does
    # not import matplotlib (about 0.4 s of its 1.3 s before the split) ...
    assert "matplotlib" not in _imports_after("import audit.report.leaderboard")
    # ... which the figures' drawing still does (the check can see it)
    assert "matplotlib" in _imports_after("import audit.report.plots")


def test_the_writers_still_use_it():  # the check above can see polars when it is there
    assert "polars" in _imports_after("import audit.cells.census")


def test_reading_a_prereg_kind_needs_no_schema_library():
    prereg = ROOT / "prereg" / "openhands-index.yaml"
    seen = _imports_after(
        "from audit.kinds.arm_kind import LEADERBOARD, of_file\n"
        f"assert of_file({str(prereg)!r}) is LEADERBOARD\n"
        "import audit.core.agree"
    )
    assert "jsonschema" not in seen
    # and checking the document still imports and uses it
    checked = _imports_after(
        f"from audit.kinds.arm_kind import load_checked\nload_checked({str(prereg)!r})"
    )
    assert "jsonschema" in checked


def test_the_seal_signs_without_importing_a_cloud_signer_library():
    # boto3 is in the referee's environment (the intake group brings it), so that
    # securesystemslib's signer package would import it: the seal does not ...
    seen = _imports_after("import audit.seal.annex, audit.seal.verify")
    assert "boto3" not in seen and "botocore" not in seen
    # ... and a later import of it in the same process still works (the check can see it)
    later = _imports_after("import audit.seal.attest\nimport boto3")
    assert "boto3" in later and "botocore" in later
