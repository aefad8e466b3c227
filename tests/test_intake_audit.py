"""From each intake adapter's output to a sealed annex (docs/intake.md, "From an adapter's
output to a sealed annex"): the adapter, a prereg (tests/intake/<format>.yaml) and its
config, the DAG. The SWE-bench site's file takes the same path in
tests/test_swebench_site_audit.py.

Expected figures are worked by hand from the fixtures: Every Eval Ever records built
field by field (tests/test_eee.py: x right on 3 of 4, y on 4 of 4), Inspect logs written
by inspect_ai (tests/test_inspect_log.py: X and Y each right on 3 of 4).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, read_csv_rows, run_audit, run_dag
from tests.test_eee import TARGETS, write_record

pytestmark = pytest.mark.slow


def _audit(work: Path, bundle: Path, fmt: str) -> Path:
    """The DAG on ``bundle`` under tests/intake/<fmt>.yaml; the arm's results folder."""
    prereg = ROOT / "tests" / "intake" / f"{fmt}.yaml"
    config = work / "arm.yaml"
    config.write_text(
        f"arm: {fmt}-intake\nseat: first\nbundle: {bundle}\nprereg: {prereg}\n"
        f"prereg_blake3: {file_blake3(prereg)}\n"
    )
    p = run_dag(work, "--configfile", str(config))
    assert p.returncode == 0, p.stderr[-3000:]
    res = work / "results" / f"{fmt}-intake"
    assert (res / "annex" / "manifest.json").is_file()
    agreement = json.loads((res / "agreement.json").read_text())
    assert agreement["disagreements"] == 0
    return res


def _measured(res: Path) -> dict[str, str]:
    return {
        c["row_id"]: c["class"]
        for c in read_csv_rows(res / "census_cells.csv")
        if c["class"] not in ("structural", "no_antecedent")
    }


def test_every_eval_ever_records_to_a_sealed_annex(impl_envs, tmp_path: Path) -> None:
    x = write_record(
        tmp_path / "a", "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS)
    )
    y = write_record(
        tmp_path / "b", "acme/y", dict(zip(TARGETS, "ABAB", strict=True)), list(TARGETS)
    )
    bundle = tmp_path / "bundle"
    res = run_audit("adapt-eee", x, y, "--out", bundle)
    assert res.code == 0, res.stderr
    out = _audit(tmp_path, bundle, "eee")
    runs = {
        f"{m}/{json.loads(p.read_text())['evaluation_id']}/letters"
        for m, p in (("acme/x", x), ("acme/y", y))
    }
    # published 0.75 and 1.0, the task-macro mean of each run's rewards: both reproduced
    assert _measured(out) == dict.fromkeys(runs, "reproduced")


def test_inspect_logs_to_a_sealed_annex(impl_envs, tmp_path: Path) -> None:
    from tests.test_inspect_log import MAKE as LOGS

    logs = tmp_path / "logs"
    p = subprocess.run(
        [sys.executable, "-c", LOGS, str(logs)], check=False, capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr[-3000:]
    files = [f for side in ("x", "y") for f in (logs / side).iterdir()]
    # a third log: y's, of another eval id, holding 1 of the 4 samples its header counts
    [y] = (logs / "y").iterdir()
    doc = json.loads(y.read_text())
    doc["eval"]["eval_id"] = "cut"
    doc["samples"] = doc["samples"][:1]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(doc))
    bundle = tmp_path / "bundle"
    res = run_audit("adapt-inspect", *files, cut, "--out", bundle)
    assert res.code == 0, res.stderr
    assert (
        "FINDING mockllm/model/cut: the header counts 4 completed sample(s); the log holds 1"
        in res.stdout
    )
    out = _audit(tmp_path, bundle, "inspect")
    cells = {
        (c["row_id"], c["column"]): c["class"] for c in read_csv_rows(out / "census_cells.csv")
    }
    runs = sorted({r for r, _ in cells})
    assert len(runs) == 3 and "mockllm/model/cut" in runs
    for run in runs:
        # x and y publish accuracy 0.75 and 4 completed samples, 3 of 4 right: reproduced;
        # the cut log's 4 cannot be recomputed from the 1 sample shipped: divergent
        want = "divergent" if run == "mockllm/model/cut" else "reproduced"
        assert cells[(run, "completed_samples")] == want, run
        if run != "mockllm/model/cut":
            assert cells[(run, "accuracy")] == "reproduced", run
