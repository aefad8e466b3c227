"""A killed run resumes with the same command; a complete run reruns nothing.

Every run is the demo DAG as the README starts it (``snakemake --cores 2``, the
repository's Snakefile with ``--directory``), each in a folder of its own. One
uninterrupted run is the reference. Each kill point starts a fresh run, waits
for one job to start (its log file under results/demo/logs/ appears), lets it
work for a moment, kills it with SIGKILL (the whole process group: Snakemake and
every job it started; or Snakemake alone, its jobs left running), then runs the
very same command again, nothing added. The resumed run must end with exit 0 and
an annex that compare-annex finds identical to the reference's in every
non-volatile file, that verifies against the head the resumed run printed, and
a ledger that verifies and records each event once.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, SNAKEMAKE, run_audit

PREREG = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
RES = Path("results") / "demo"
HEAD = re.compile(r"^Annex head\b.*`([0-9a-f]{64})`$")

# name -> (the job's log whose appearance marks the point, seconds to let it
# work, what is killed). Spread over the DAG: the lock (its first job under the
# arm), a contestant's second run, the controls' predictions and stamps (event
# files), the controls' recompute with Snakemake alone killed, the report's figures,
# the report, the seal (which writes the ledger and the annex). Each wait is about
# half the job's own time on the demo (lock 0.6 s, a pyarrow run 0.46 s, predictions
# 0.55 s, the pandas control rerun 0.7 s, the figures 1.1 s, the report 0.3 s since
# it draws none, seal 0.4 s since it reads records and no dataframe), so the kill
# lands inside it; a wait longer than the seal lets the run finish first (the
# process ends with its last job: audit/core/run_end.py).
KILLS = {
    "lock": ("lock.log", 0.3, "group"),
    "recompute": ("recompute_pyarrow_run2.log", 0.2, "group"),
    "control-stamp": ("controls_predict_perturb.log", 0.3, "group"),
    "control-snakemake-alone": ("controls_recompute_pandas.log", 0.35, "snakemake"),
    "report-figures": ("report_figures.log", 0.5, "group"),
    "report": ("report.log", 0.15, "group"),
    "seal": ("annex.log", 0.2, "group"),
}


def _argv(work: Path) -> list[str]:
    """The same command every time: no --unlock, no --rerun-incomplete."""
    return [
        SNAKEMAKE,
        "--snakefile",
        str(ROOT / "Snakefile"),
        "--directory",
        str(work),
        "--cores",
        "2",
        "--config",
        PREREG,
    ]


def _workdir(path: Path) -> Path:
    (path / "config").mkdir(parents=True)
    (path / "config" / "config.yaml").write_bytes((ROOT / "config" / "config.yaml").read_bytes())
    return path


def _run(work: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        _argv(work), capture_output=True, text=True, timeout=900, check=False, cwd=work
    )


def _head(p: subprocess.CompletedProcess) -> str:
    """The annex head as the run printed it: its last line of output."""
    last = p.stdout.rstrip("\n").splitlines()[-1]
    m = HEAD.match(last)
    assert m, f"the run's last line is not the annex head: {last!r}"
    return m.group(1)


def _annex_files(work: Path) -> dict[str, bytes]:
    annex = work / RES / "annex"
    return {
        p.relative_to(annex).as_posix(): p.read_bytes()
        for p in sorted(annex.rglob("*"))
        if p.is_file()
    }


def _assert_sound(work: Path, head: str, reference: Path) -> None:
    """compare-annex against the reference, verify against the head, the ledger's chain."""
    cmp = run_audit("compare-annex", reference / RES / "annex", work / RES / "annex")
    assert cmp.code == 0, cmp.stdout + cmp.stderr
    assert "verdict: every non-volatile file identical" in cmp.stdout, cmp.stdout
    ver = run_audit("verify", work / RES / "annex", "--head", head)
    assert ver.code == 0, ver.stdout + ver.stderr
    led = run_audit("verify-ledger", RES / "ledger.jsonl", cwd=work)
    assert led.code == 0, led.stdout + led.stderr
    lines = (work / RES / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    entries = [json.loads(x) for x in lines]
    assert entries[-1]["hash"] == head and entries[-1]["event"] == "annex_sealed"
    keys = [(e["event"], json.dumps(e.get("subject"), sort_keys=True)) for e in entries]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    assert dupes == [], f"events recorded twice: {dupes}"
    assert [e["event"] for e in entries].count("prereg_locked") == 1


@pytest.fixture(scope="module")
def reference(impl_envs, tmp_path_factory: pytest.TempPathFactory):
    work = _workdir(tmp_path_factory.mktemp("reference"))
    p = _run(work)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return work, p


@pytest.mark.slow
def test_the_uninterrupted_run_is_sound(reference) -> None:
    work, p = reference
    _assert_sound(work, _head(p), work)


@pytest.mark.slow
def test_a_second_run_of_a_complete_run_does_nothing(reference) -> None:
    # Before the ledger became per-job event files chained at the seal, this
    # rerun ran 25 jobs, appended to the ledger and resealed the annex, and
    # verify-ledger then failed (subject_changed).
    work, first = reference
    ledger = (work / RES / "ledger.jsonl").read_bytes()
    annex = _annex_files(work)
    logs = {p.name: p.stat().st_mtime_ns for p in (work / RES / "logs").iterdir()}
    p = _run(work)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    said = p.stdout + p.stderr
    assert "Nothing to be done" in said, said[-3000:]
    assert "localrule" not in said and "Finished jobid" not in said, said[-3000:]
    # no job started: no log written again, no new log
    assert {q.name: q.stat().st_mtime_ns for q in (work / RES / "logs").iterdir()} == logs
    assert (work / RES / "ledger.jsonl").read_bytes() == ledger
    assert _annex_files(work) == annex
    _assert_sound(work, _head(first), work)


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float = 600) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, f"the run ended before {path} appeared"
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)


def _group_gone(pgid: int, timeout: float = 120) -> None:
    """Wait until no process of the group is left (jobs orphaned by killing Snakemake alone)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process group {pgid} still alive after {timeout} s")


@pytest.mark.slow
@pytest.mark.parametrize("point", list(KILLS))
def test_a_run_killed_there_resumes_with_the_same_command(
    point: str, reference, tmp_path: Path
) -> None:
    log_name, linger, target = KILLS[point]
    work = _workdir(tmp_path / point)
    with (work / "killed.log").open("w") as out:
        proc = subprocess.Popen(
            _argv(work), stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=work
        )
    try:
        _wait_for(work / RES / "logs" / log_name, proc)
        time.sleep(linger)
        assert proc.poll() is None, "the run ended before the kill: not a test"
        if target == "group":
            os.killpg(proc.pid, signal.SIGKILL)  # Snakemake and every job it started
        else:
            os.kill(proc.pid, signal.SIGKILL)  # Snakemake alone: its jobs go on, orphaned
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    killed = (work / "killed.log").read_text(encoding="utf-8", errors="replace")
    assert "Annex head" not in killed, "the run finished before the kill: not a test"
    if target != "group":
        # Its jobs were still running when Snakemake died; the resumed run starts
        # when they are done (a live job and its rerun would both write its outputs).
        _group_gone(proc.pid)

    p = _run(work)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "Traceback" not in p.stdout + p.stderr
    _assert_sound(work, _head(p), reference[0])


@pytest.mark.slow
def test_a_file_the_seal_copies_removed_is_built_again(reference, tmp_path: Path) -> None:
    # A rerun killed while a job reruns leaves that job's outputs removed and the
    # files after it in place; Snakemake builds a missing file again only when a
    # job to run asks for it. Before the seal declared every file it copies, the
    # next run left the prediction missing and the seal failed on it
    # (error[missing_file], exit 1). Here: a complete run with its seal undone and
    # one control's prediction and selection removed, then the same command.
    import shutil

    work = tmp_path / "copy"
    shutil.copytree(reference[0], work, symlinks=True)
    control = work / RES / "controls" / "swap_m1_m2"
    for name in ("prediction.csv", "selection.json"):
        (control / name).unlink()
    shutil.rmtree(work / RES / "annex")
    (work / RES / "ledger.jsonl").unlink()
    p = _run(work)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert (control / "prediction.csv").is_file()
    _assert_sound(work, _head(p), reference[0])


def _contestant(work: Path, impl: str, run: str, proc: subprocess.Popen) -> int:
    """The pid of this test's own contestant process for that run: its program is this
    repository's environment, its command line names the run folder, its working
    folder is this test's (other checkouts on the machine run the same programs)."""
    program = f"{ROOT}/.venvs/impl-{impl}/bin/python"
    end = time.monotonic() + 600
    while time.monotonic() < end:
        assert proc.poll() is None, f"the run ended before {impl} {run} started"
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                cwd = os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                continue
            said = [a.decode(errors="replace") for a in argv]
            ours = said[0] == program and Path(cwd) == work
            if ours and f"recompute/{impl}/{run}" in " ".join(said):
                return int(pid)
        time.sleep(0.01)
    raise AssertionError(f"no {impl} {run} process appeared")


@pytest.mark.slow
def test_a_contestant_killed_alone_is_redone_by_the_same_command(reference, tmp_path: Path) -> None:
    # kill -9 of the contestant itself, Snakemake alive: the job fails, Snakemake
    # removes its outputs and stops with exit 1; the same command runs that run again.
    # A kill that lands between a write and its rename also leaves a hidden staging
    # file in the run folder, which stopped the next run with runs_differ
    # (tests/test_same_runs.py); one is put there by hand as such a kill leaves it.
    work = _workdir(tmp_path / "contestant")
    with (work / "killed.log").open("w") as out:
        proc = subprocess.Popen(
            _argv(work), stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=work
        )
    try:
        pid = _contestant(work, "pyarrow", "run2", proc)
        time.sleep(0.2)
        os.kill(pid, signal.SIGKILL)
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
    killed = (work / "killed.log").read_text(encoding="utf-8", errors="replace")
    assert proc.returncode == 1, killed[-3000:]
    assert "exit status 137" in killed and "error in recompute" in killed, killed[-3000:]
    run2 = work / RES / "recompute" / "pyarrow" / "run2"
    run2.mkdir(parents=True, exist_ok=True)
    (run2 / ".nulls.csv.k1ll3d.tmp").write_bytes(b"draw,value\n")
    p = _run(work)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "runs_differ" not in p.stdout + p.stderr
    _assert_sound(work, _head(p), reference[0])
