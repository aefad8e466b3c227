"""The order jobs start in when more are ready than cores (workflow/rules/common.smk:
LOCK_FIRST, PREDICT_FIRST, FIRST_RUNS_FIRST, CONTROLS_FIRST; docs/performance.md).

The controls' check, and the report's figures after it, read each contestant's first
run and the controls' reruns; the second runs are read only by the same-runs proof and
the agreement. So after the lock come the controls' prediction and perturbation (the
head of the longest chain), then each contestant's first run, then the controls'
reruns, and the second runs last. Before, the controls' reruns went first and the
first runs after them with the second runs, and the check waited for all of them.

On one core Snakemake starts one job at a time, the ready job of highest priority
first, and its log names each job as it starts: the demo's whole run, read from that
log. The order is not an output: every byte the run writes is the same in any order
(tests/test_resume.py, compare-annex in docs/performance.md).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT, run_dag


def _started(log: str) -> list[str]:
    """Each job as the log names it when it starts: its block, `[local]rule <name>:` then
    indented lines, one of them `wildcards: ...` when it has any."""
    jobs = []
    for m in re.finditer(r"^(?:local)?rule (\w+):\n((?:    .*\n)*)", log, re.MULTILINE):
        wild = re.search(r"^    wildcards: (.*)$", m.group(2), re.MULTILINE)
        jobs.append(m.group(1) + (f" {wild.group(1)}" if wild else ""))
    return jobs


def test_first_runs_go_before_the_controls_reruns_and_second_runs_last(tmp_path: Path) -> None:
    p = run_dag(tmp_path, "--cores", "1", "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert p.returncode == 0, p.stderr[-3000:]
    (log,) = (tmp_path / ".snakemake" / "log").glob("*.snakemake.log")
    jobs = _started(log.read_text(encoding="utf-8"))
    at = {job: i for i, job in enumerate(jobs)}
    first = [at[f"recompute impl={i}, run=1"] for i in ("pandas", "pyarrow")]
    second = [at[f"recompute impl={i}, run=2"] for i in ("pandas", "pyarrow")]
    reruns = [at[f"controls_recompute impl={i}"] for i in ("pandas", "pyarrow")]
    assert at["lock"] < at["controls_predict_perturb"] < min(first), jobs
    assert max(first) < min(reruns), jobs
    assert max(reruns) < min(second), jobs
    assert at["controls_check"] < min(second), jobs  # it waits for no second run
