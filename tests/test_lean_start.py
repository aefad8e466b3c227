"""What a run does not start: processes and imports that cost time and hold nothing.

- With one null shard (the default) the recompute draws the null itself: the
  DAG holds no null_draws or null_merge job (the bytes are those of the
  sharded jobs, tests/test_null_shards.py); with more shards it holds them.
- A prereg that amends nothing is checked as the workflow is read without
  importing the seal's verify, which brings polars (every run, a no-op too).
- `controls check` and `controls summary` start without polars.
- The controls are four jobs whatever their number: one prediction (with its
  stamps) and perturbation in one process, one rerun per contestant, one check;
  the demo's six controls were 37 jobs (six per control and the summary), then
  five (the prediction and the perturbation apart).
- Snakemake chooses the jobs to start with its greedy scheduler (the default
  profile), not its ILP, which runs pulp's solver process (cbc) at each pass
  that finds jobs ready.

Each would fail before the change that made it hold: the jobs were in the DAG,
the modules imported polars at their top, and the ILP started cbc.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_dag

DEMO = ROOT / "prereg" / "demo.yaml"


def _job_counts(stdout: str) -> dict[str, int]:
    """The dry run's job table (the first "Job stats:" block): rule -> count."""
    counts = {}
    for line in stdout.split("Job stats:")[1].splitlines()[3:]:
        parts = line.split()
        if not parts:
            break
        counts[parts[0]] = int(parts[1])
    return counts


@pytest.mark.parametrize(("shards", "draws", "merges"), [("1", 0, 0), ("3", 12, 4)])
def test_null_jobs_run_only_when_sharded(shards: str, draws: int, merges: int, tmp_path: Path):
    # 2 contestants x 2 runs = 4 recompute runs; 3 shards: 4 x 3 = 12 draw jobs, 4 merges
    p = run_dag(tmp_path, "-n", "--config", f"prereg={DEMO}", f"null_shards={shards}")
    assert p.returncode == 0, p.stderr[-2000:]
    counts = _job_counts(p.stdout)
    assert counts.get("null_draws", 0) == draws
    assert counts.get("null_merge", 0) == merges
    assert counts["recompute"] == 4  # one rule for both contestants and both kinds


@pytest.mark.parametrize(
    "prereg", ["demo.yaml", "skillsbench-registry.yaml"], ids=["leaderboard", "trials"]
)
def test_the_controls_are_four_jobs_whatever_their_number(prereg: str, tmp_path: Path):
    import yaml

    doc = yaml.safe_load((ROOT / "prereg" / prereg).read_text(encoding="utf-8"))
    assert len(doc["controls"]) >= 2  # more than one control, still four jobs
    config = ["--config", f"prereg={ROOT / 'prereg' / prereg}"]
    if prereg != "demo.yaml":
        config += ["bundle=" + str(ROOT.parent / "shared" / "bundles" / "skillsbench-registry")]
        config = ["--configfile", str(ROOT / "config" / "skillsbench-registry.yaml"), *config]
    p = run_dag(tmp_path, "-n", *config)
    assert p.returncode == 0, p.stderr[-2000:]
    counts = _job_counts(p.stdout)
    controls = {rule: n for rule, n in counts.items() if rule.startswith("control")}
    assert controls == {
        "controls_predict_perturb": 1,
        "controls_recompute": 2,
        "controls_check": 1,
    }


def _imports_polars(code: str) -> bool:
    probe = f"{code}\nimport sys\nprint('polars' in sys.modules)"
    p = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return p.stdout.split()[-1] == "True"


def test_the_probe_sees_polars_when_it_is_imported() -> None:
    assert _imports_polars("import controls.perturb")


def test_a_prereg_that_amends_nothing_is_checked_without_polars() -> None:
    code = (
        "from audit.lock.amends import check\n"
        "assert check('p.yaml', None, 'demo', 'results', {}) is None"
    )
    assert not _imports_polars(code)


def test_controls_check_and_summary_start_without_polars() -> None:
    code = "import controls.__main__, controls.check, controls.stamped, controls.summary"
    assert not _imports_polars(code)


def test_the_jobs_are_chosen_without_a_solver(tmp_path: Path) -> None:
    # one job run for real (the vulnerability audit, disabled: it records why and ends)
    # by Snakemake in a process that notes every program it starts: the job's shell,
    # and with the ILP scheduler pulp's CBC solver (cbc) at each pass that finds jobs
    # ready; pulp itself is imported either way (Snakemake's options name its solvers)
    (tmp_path / "config").mkdir()
    shutil.copyfile(ROOT / "config" / "config.yaml", tmp_path / "config" / "config.yaml")
    with (tmp_path / "config" / "config.yaml").open("a", encoding="utf-8") as f:
        f.write("vulnerability_audit: false\n")  # as run_dag: no network from a test
    argv = ["snakemake", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path)]
    argv += ["--cores", "2", "results/demo/vulnerabilities.json", "--config", f"prereg={DEMO}"]
    code = (
        "import atexit, json, os, subprocess, sys\n"
        "started = []\n"
        "popen = subprocess.Popen.__init__\n"
        "def note(self, args, *a, **k):\n"
        "    started.append(args if isinstance(args, str) else os.path.basename(str(args[0])))\n"
        "    popen(self, args, *a, **k)\n"
        "subprocess.Popen.__init__ = note\n"
        "atexit.register(lambda: print('started:', json.dumps(started)))\n"
        f"sys.argv = {argv!r}\n"
        "from snakemake.cli import main\n"
        "main()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    started = json.loads(p.stdout.split("started:")[-1])
    assert any("audit.seal.vulns" in s for s in started)  # the job's shell
    assert not [s for s in started if "cbc" in s]
