"""The same Snakefile on a real SLURM cluster: the demo audit through profiles/slurm.

A single-node cluster on 127.0.0.1 (tests/slurm_cluster.py) is installed from
Debian's packages, started, and stopped again whatever happens. The audit runs
with ``--workflow-profile profiles/slurm``; every job must have been a SLURM
job, and the census and controls must be byte-identical to a local run's.
Skipped, with the reason, where the cluster cannot be installed (not root, no
apt-get, no network to Debian's archive).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests import slurm_cluster
from tests.conftest import ROOT

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))  # the default environment's
CLUSTER_ENV = ROOT / ".venvs" / "cluster"
PROFILE = ROOT / "profiles" / "slurm"
# what a cluster run must reproduce byte for byte (the ledger and the annex hold times)
COMPARED = [
    "census.txt",
    "census.json",
    "census_columns.csv",
    "census_cells.csv",
    "census_rows.csv",
    "agreement.json",
    "controls.csv",
    "controls.md",
]


@pytest.fixture(scope="module")
def cluster_snakemake() -> str:
    """Snakemake of the cluster environment (docs/environments.md: no SLURM plugin in .venv)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["UV_PROJECT_ENVIRONMENT"] = str(CLUSTER_ENV)
    uv = os.environ.get("UV", "uv")
    cmd = [uv, "sync", "--project", str(ROOT), "--frozen", "--group", "cluster", "-q"]
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)
    return str(CLUSTER_ENV / "bin" / "snakemake")


@pytest.fixture(scope="module")
def cluster():
    reason = slurm_cluster.usable()
    if reason:
        pytest.skip(f"SLURM test cluster: {reason}")
    run_dir = Path(tempfile.mkdtemp(prefix="secondseat-slurm-"))
    c = slurm_cluster.Cluster(run_dir)
    # a SIGTERM to pytest must still reach the finalizer below (and stop the daemons)
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        c.install()
        c.configure()
        c.start()
    except slurm_cluster.Unavailable as why:
        c.stop()
        signal.signal(signal.SIGTERM, previous)
        pytest.skip(f"SLURM test cluster: {why}")
    except BaseException:
        c.stop()
        signal.signal(signal.SIGTERM, previous)
        raise
    try:
        yield c
    finally:
        c.stop()
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(run_dir, ignore_errors=True)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(f"terminated by signal {signum}")


def audit(snakemake: str, work: Path, pycache: Path, *extra: str) -> subprocess.CompletedProcess:
    """The demo audit, run from `work` (results land there).

    Each SLURM job starts snakemake twice (sbatch, then srun), so bytecode is
    cached (in `pycache`, outside the environments) rather than recompiled."""
    (work / "config").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "config" / "config.yaml", work / "config" / "config.yaml")
    cmd = [snakemake, "--snakefile", str(ROOT / "Snakefile"), "--directory", str(work)]
    cmd += [*extra, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return subprocess.run(
        cmd, check=False, cwd=work, env=env, capture_output=True, text=True, timeout=1200
    )


def squeue_states() -> dict[str, str]:
    """SLURM job id -> state, for every job squeue still lists (MinJobAge)."""
    got = subprocess.run(
        ["squeue", "--states=all", "-h", "-o", "%i|%T"],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(line.strip().split("|", 1) for line in got.stdout.splitlines())


JOB = re.compile(r"^(local)?rule (\w+):\n((?:[ \t]+.*\n)+)", re.MULTILINE)


def jobs_in(text: str) -> set[tuple[str, str]]:
    """(rule, outputs) of every job a snakemake log announces, but the target `all`."""
    jobs = set()
    for m in JOB.finditer(text):
        if m.group(2) == "all":
            continue
        output = re.search(r"^\s+output: (.*)$", m.group(3), re.MULTILINE)
        jobs.add((m.group(2), output.group(1) if output else ""))
    return jobs


@pytest.mark.slow
def test_the_demo_audit_runs_on_slurm_as_it_runs_locally(
    impl_envs, cluster_snakemake, cluster, tmp_path
) -> None:
    local = tmp_path / "local"
    p = audit(SNAKEMAKE, local, tmp_path / "pycache", "--cores", "2")
    assert p.returncode == 0, p.stderr[-3000:]
    # Snakemake's job blocks, from the run's log file (the terminal shows stages only)
    log = re.findall(r"Complete log\(s\): (\S+)", p.stdout + p.stderr)
    assert log, (p.stdout + p.stderr)[-3000:]
    planned = jobs_in(Path(log[-1]).read_text(errors="replace"))
    # the whole demo DAG but `all`: the demo bundle, the lock, two environments, the
    # advisories, four recomputes, two same-runs, the agreement, the census, the
    # record of outputs, the four controls jobs (prediction and perturbation are one), the
    # report's figures (their own job since issue 28), the report and the annex
    assert len(planned) == 21

    on_slurm = tmp_path / "slurm"
    t0 = time.monotonic()
    p = audit(cluster_snakemake, on_slurm, tmp_path / "pycache", "--workflow-profile", str(PROFILE))
    seconds = time.monotonic() - t0
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-4000:]

    # every job ran inside a SLURM job (its log, kept by the profile, announces it),
    # and every SLURM job the run submitted completed
    submitted = re.findall(r"submitted with SLURM jobid (\d+)", out)
    assert submitted
    states = squeue_states()
    assert {states.get(j) for j in submitted} == {"COMPLETED"}, states
    logs = sorted((on_slurm / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert len(logs) == len(submitted)
    ran = set().union(*(jobs_in(f.read_text(errors="replace")) for f in logs))
    assert ran == planned, (planned - ran, ran - planned)

    # the cluster computed what the local run computed
    a, b = local / "results" / "demo", on_slurm / "results" / "demo"
    for name in COMPARED:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    checks = sorted(p.relative_to(a) for p in a.glob("controls/*/check.csv"))
    assert len(checks) == 6  # the demo prereg declares six controls
    for rel in checks:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    print(f"SLURM run: {len(planned)} jobs in {len(submitted)} SLURM jobs, {seconds:.0f} s")
