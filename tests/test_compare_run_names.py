"""A run named like an option reaches compare-runs as a run (issue 27).

A trials source's run is named by its jobs folder, which may start with "-". The
prereg's compare block names it; preflight found it in the trial table and the lock
locked the arm; then the compare_runs job handed it to compare-runs as a positional
argument, which argparse read as an option: `error: unrecognized arguments: -x` with
Snakemake's exit 1, the arm locked. The workflow now passes such runs as `--a=<run>
--b=<run>` (audit/kinds/arm.py compare_args): the run ends (exit 0) and compare.txt
names the run. The shipped BenchFlow sample, its run skills renamed -x (folder, the
prereg's control target and compare block).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

BENCHFLOW = ROOT.parent / "shared" / "bundles" / "benchflow-trials-sample"


def test_a_run_named_like_an_option_is_compared(tmp_path: Path) -> None:
    if not (BENCHFLOW / "jobs" / "skills").is_dir():
        pytest.skip(f"bundle not present at {BENCHFLOW}")
    bundle = tmp_path / "bundle"
    shutil.copytree(BENCHFLOW, bundle)
    (bundle / "jobs" / "skills").rename(bundle / "jobs" / "-x")
    text = (ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8")
    assert text.count("{run: skills}") == 2 and text.count("\n  a: skills\n") == 1
    text = text.replace("{run: skills}", '{run: "-x"}').replace("\n  a: skills\n", '\n  a: "-x"\n')
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text, encoding="utf-8")
    config = [
        "arm=benchflow-dash",
        f"prereg={prereg}",
        f"prereg_blake3={file_blake3(prereg)}",
        f"bundle={bundle}",
    ]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "benchflow-dash" / "compare"
    assert (
        (res / "compare.txt")
        .read_text(encoding="utf-8")
        .startswith("compare-runs: A = -x, B = no_skills")
    )
    compared = json.loads((res / "compare.json").read_text(encoding="utf-8"))
    assert (compared["a"]["run"], compared["b"]["run"]) == ("-x", "no_skills")
