"""Faults during a run: a killed DAG resumes with the usual command; two runs do not mix.

Every run here is the demo DAG as the README starts it (``snakemake --cores 2``),
in a temporary working folder. Outputs are compared with an uninterrupted run,
file by file, except what holds the ledger's times: ``ledger.jsonl`` (whose
chain is verified instead), the logs, and the annex files that quote the
ledger's head or the run's time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_audit

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
# Files that differ between two uninterrupted runs: they hold or quote the ledger's times.
VOLATILE = {
    "annex/README.md",
    "annex/certificate.md",
    "annex/manifest.json",
    "annex/run.json",
    "annex/attestation.dsse.json",  # signs run.json's digest among the rest
    "vulnerabilities.json",  # depends on the day (docs/seal.md)
    "annex/vulnerabilities.json",
}


def _volatile(rel: str) -> bool:
    """Event files hold when each event happened (docs/seal.md), as do the annex's above."""
    parts = rel.split("/")
    stamp = len(parts) == 3 and parts[0] == "controls" and parts[2].startswith("stamp.")
    return rel in VOLATILE or rel.startswith("events/") or stamp


# The demo's census, worked by hand (audit/bundles/demo.py).
DEMO_CENSUS = {
    "structural": 12,
    "no_antecedent": 16,
    "reproduced": 23,
    "divergent": 3,
    "no_data": 2,
}


def _argv(work: Path, cores: str = "2") -> list[str]:
    return [
        SNAKEMAKE,
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--directory",
        str(work),
        "--cores",
        cores,
        "--config",
        f"prereg={ROOT / 'prereg' / 'demo.yaml'}",
    ]


def _workdir(path: Path) -> Path:
    (path / "config").mkdir(parents=True)
    shutil.copyfile(ROOT / "config" / "config.yaml", path / "config" / "config.yaml")
    return path


def _start(work: Path, cores: str = "2") -> subprocess.Popen:
    """The DAG as its own process group (so a kill reaches every job it started).

    Its output goes to work/run.log (outside results/), read with _log()."""
    with (work / "run.log").open("w") as log:
        return subprocess.Popen(
            _argv(work, cores), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )


def _log(work: Path) -> str:
    return (work / "run.log").read_text(encoding="utf-8", errors="replace")[-3000:]


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 300) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, f"the run ended before {path} appeared"
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)


def _outputs(work: Path) -> dict[str, bytes]:
    res = work / "results" / "demo"
    out = {}
    for p in sorted(res.rglob("*")):
        rel = p.relative_to(res).as_posix()
        if p.is_file() and p.name != "ledger.jsonl" and not rel.startswith("logs/"):
            out[rel] = p.read_bytes()
    return out


def _assert_same_outputs(work: Path, reference: Path) -> None:
    got, want = _outputs(work), _outputs(reference)
    assert sorted(got) == sorted(want), (
        f"files differ: extra {sorted(set(got) - set(want))}, "
        f"missing {sorted(set(want) - set(got))}"
    )
    differ = [f for f in want if got[f] != want[f] and not _volatile(f)]
    assert differ == [], f"outputs differ from the uninterrupted run's: {differ}"
    for name in ("census.json", "controls.csv", "agreement.json"):
        assert name in got, name


def _assert_ledger_holds(work: Path) -> list[dict]:
    res = run_audit("verify-ledger", "results/demo/ledger.jsonl", cwd=work)
    assert res.code == 0, res.stdout + res.stderr
    text = (work / "results" / "demo" / "ledger.jsonl").read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines()]


@pytest.fixture(scope="module")
def busy_folder(impl_envs, tmp_path_factory: pytest.TempPathFactory):
    """A run, and a second one started in the same folder while the first is under way.

    The first run is never interrupted: it is also the reference the killed run
    is compared with (and checked against the demo's hand-worked census)."""
    work = _workdir(tmp_path_factory.mktemp("busy"))
    # one core: the first run must outlive the second's start-up, which can take
    # seconds (Snakemake loads every executor plugin it finds)
    first = _start(work, cores="1")
    try:
        _wait_for(work / "results" / "demo" / "lock" / "lock.json", first)
        locks = sorted(p.name for p in (work / ".snakemake" / "locks").glob("*.lock"))
        second = subprocess.run(
            _argv(work), capture_output=True, text=True, timeout=900, check=False
        )
        # the first run's Snakemake locks, looked at while it is still alive
        kept = locks and all((work / ".snakemake" / "locks" / n).exists() for n in locks)
        first_alive = first.poll() is None
    finally:
        first.wait(timeout=900)
    return work, first.returncode, second, first_alive, first.pid, kept


@pytest.mark.slow
def test_a_second_run_on_the_same_folder_is_refused(busy_folder) -> None:
    work, first_code, second, first_alive, first_pid, kept = busy_folder
    said = second.stdout + second.stderr
    assert first_alive, "the first run ended before the second was refused: not a test"
    # Refused while the workflow is read, in one line naming the live run; its
    # Snakemake locks were left where they were.
    assert second.returncode == 2, said
    errors = [x for x in second.stderr.splitlines() if x.startswith("error[")]
    assert len(errors) == 1 and errors[0].startswith("error[busy]: .snakemake/secondseat.lock:")
    assert f"(pid {first_pid}, started 20" in errors[0] and "arm demo" in errors[0], errors
    assert "stale" not in said and "Traceback" not in said
    assert kept, "the live run's Snakemake locks were removed (or it held none)"
    assert first_code == 0, _log(work)
    census = json.loads((work / "results" / "demo" / "census.json").read_text())
    assert census["classes"] == DEMO_CENSUS
    entries = _assert_ledger_holds(work)
    assert [e["event"] for e in entries].count("prereg_locked") == 1


@pytest.mark.slow
def test_a_killed_run_resumes_with_the_usual_command(busy_folder, tmp_path: Path) -> None:
    reference = busy_folder[0]
    work = _workdir(tmp_path / "killed")
    proc = _start(work)
    _wait_for(work / "results" / "demo" / "recompute", proc)
    os.killpg(proc.pid, signal.SIGKILL)  # snakemake and every job it started
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert not (work / "results" / "demo" / "census.json").exists(), "killed too late"
    assert any((work / ".snakemake" / "locks").glob("*.lock")), "the kill left no stale lock"

    # The README's command, unchanged: no --unlock, no --rerun-incomplete.
    p = subprocess.run(_argv(work), capture_output=True, text=True, timeout=900, check=False)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "stale Snakemake lock(s)" in p.stdout + p.stderr
    _assert_same_outputs(work, reference)
    entries = _assert_ledger_holds(work)
    assert [e["event"] for e in entries].count("prereg_locked") == 1
