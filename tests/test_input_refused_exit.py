"""Input a job refuses after the lock ends the run as a refusal: one line, exit 2.

Some input can only be judged once a job runs (a control whose target row cannot
take the perturbation, on a bundle a workflow rule builds: preflight has no values to
choose from, docs/refusals.md, "Where each class is refused"). Such a run used to end
with Snakemake's exit 1 and
its error block, the arm locked on the input and nothing saying what to do. Now it
ends with the job's own line and exit 2, and, the arm being locked, a line saying
that the corrected input is a new arm (README, "Auditing another bundle").
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from audit.core.run_end import refusal_end, refused_input
from audit.files import file_blake3
from tests.conftest import ROOT, run_dag


def _log(folder: Path, name: str, text: str, age: float = 0.0) -> Path:
    p = folder / name
    p.write_text(text, encoding="utf-8")
    when = time.time() - age
    os.utime(p, (when, when))
    return p


def test_only_this_runs_input_refusals_each_once(tmp_path: Path) -> None:
    began = time.time() - 10
    line = "error[bad_type]: b/instances.parquet: column 'cost' is string"
    logs = [
        _log(tmp_path, "a.log", f"reading\n{line}\n", age=2),  # a contestant's run 1
        _log(tmp_path, "b.log", f"{line}\n", age=1),  # run 2: the same line, shown once
        _log(tmp_path, "old.log", "error[bad_prereg]: p.yaml: an earlier run\n", age=60),
        # a fault of the run, not of its input: left to Snakemake's own end
        _log(tmp_path, "c.log", "error[changed_after_stamp]: results/x: changed\n"),
        _log(tmp_path, "d.log", "all good\n"),
    ]
    assert refused_input(logs, began) == [line]
    assert refused_input([tmp_path / "c.log", tmp_path / "d.log"], began) == []
    # a control that no row can take is the input's; a stamped file changed is not
    control = "error[control]: control flip_m9: row 'demo/m9' is not on the leaderboard"
    assert refused_input([_log(tmp_path, "f.log", control + "\n")], began) == [control]
    changed = "error[control]: results/demo/controls/x/prediction.csv: changed after it was stamped"
    assert refused_input([_log(tmp_path, "g.log", changed + "\n")], began) == []
    # a job's last refusal is its own: an input line printed before a fault is not it
    fault = _log(tmp_path, "e.log", f"{line}\nerror[runs_differ]: r: differ\n")
    assert refused_input([fault], began) == []


def test_a_control_on_the_built_bundle_is_refused_by_the_lock(impl_envs, tmp_path):
    """The demo with the control flip_m2_beta flipping 50 of demo/m2's resolved beta
    instances: demo/m2 lists 10 beta instances (the demo bundle), so no 50 of them are
    true and the row cannot take the perturbation. The bundle is the one the workflow
    builds (the config's results/demo-bundle, not there when the run starts), so
    preflight cannot choose the control's row (a shipped bundle's is refused before any
    job: tests/test_preflight_controls.py). The controls' job used to find it, after the
    lock, leaving the arm locked on it; now the lock judges it with the same code
    (controls/before_lock.py) before it writes anything: the job's line, exit 2, no lock
    nor events, and the corrected prereg then locks the arm and the run completes."""
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    old = "    column: beta_score\n    target: {row_id: demo/m2}\n    size: 2\n"
    assert old in text
    prereg = tmp_path / "demo-flip.yaml"
    prereg.write_text(text.replace(old, old.replace("size: 2", "size: 50")), encoding="utf-8")
    # the control's own words (controls/predict.py), written out by hand
    want = "error[control]: control flip_m2_beta: row 'demo/m2' cannot take this perturbation"

    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}"]  # the built bundle
    assert not (tmp_path / "results" / "demo-bundle").exists()
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    # the job's line, then the run's end (audit/core/run_end.py): that line alone
    assert {x for x in p.stderr.splitlines() if x.startswith("error[")} == {want}
    assert p.stderr.strip().splitlines()[-1] == want
    arm = tmp_path / "results" / "demo"
    assert not (arm / "lock").exists() and not (arm / "events").exists()
    assert "was locked on this input" not in p.stderr  # no arm-locked advice: not locked
    prereg.write_text(text, encoding="utf-8")  # corrected: the shipped size, 2
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    assert (arm / "lock" / "lock.json").is_file()


def test_a_refusal_after_the_lock_ends_with_its_line_and_the_new_arm_advice(
    tmp_path: Path,
) -> None:
    """The run's end when a job refused its input after the lock (audit/core/run_end.py
    ``refusal_end``, which workflow/rules/preflight.smk input_refused_exit prints, then
    exit 2): the job's line, then the line saying the locked arm takes no other input.
    No input is known to reach the contestants after the lock any more: the last one, two
    models for one of two floating leaderboard row ids written alike (1e-07 and 2e-07,
    both 0.000000), is duplicate_key before any job since the row id is the row's name
    as written (tests/test_preflight_values.py), and docs/refusals.md lists no class left
    to the contestants. So the path is held here with the smallest honest means: the arm's
    logs as a run leaves them (a contestant's log ending with its one line, written since
    the run began; an earlier run's; a job's that refused nothing) and the arm's lock.json
    there or not, the advice's words written out by hand as the README says them."""
    began = time.time() - 10
    arm = tmp_path / "results" / "demo"
    (arm / "logs").mkdir(parents=True)
    line = "error[ambiguous_value]: b/instances.parquet: 'model' (for 'model') holds 2 distinct values for row id '0.000000'"
    logs = [
        _log(arm / "logs", "impl_pandas_run1.log", f"reading\n{line}\n", age=1),
        _log(arm / "logs", "old.log", "error[bad_prereg]: p.yaml: an earlier run\n", age=60),
        _log(arm / "logs", "census.log", "all good\n"),
    ]
    lock = arm / "lock" / "lock.json"
    assert refusal_end(logs, began, "demo", lock) == [line]  # not locked: no advice
    lock.parent.mkdir()
    lock.write_text("{}", encoding="utf-8")
    assert refusal_end(logs, began, "demo", lock) == [
        line,
        f"arm 'demo' was locked on this input ({lock}) before a job refused it, and a locked"
        " arm takes no other bundle or prereg: correct the input and audit it under a new"
        " arm name (say arm=demo-2; README, 'Auditing another bundle')",
    ]
    assert refusal_end(logs[1:], began, "demo", lock) == []  # no job refused its input


@pytest.mark.parametrize(
    "line",
    [
        "error[missing_file]: hf://datasets/a/b@" + "2e" * 20 + ":x.parquet: not in the dataset",
        "error[hash_mismatch]: results/hf/bundle/hf/x.parquet: sha256 0 but a/b@c recorded 1",
        "error[prereg_changed]: p.yaml: blake3 is 1 but the config expects 2; a new arm",
        "error[undecided]: p.yaml: 1 item(s) undecided: seed",
        "error[amends_cycle]: p.yaml: arm 'demo' amends itself",
        "error[amends_unknown_arm]: results/demo/annex/manifest.json: the parent's annex is gone",
        "error[amends_not_verified]: results/demo/annex: does not verify with the declared head",
    ],
)
def test_every_input_class_a_job_raises_is_a_refusal(tmp_path: Path, line: str) -> None:
    """Each class docs/refusals.md says ends a run with exit 2 and that a job can raise
    (fetch_hf: missing_file, hash_mismatch; the lock: the rest, on a fetched bundle or an
    input changed since the workflow was read) is an input refusal; before issue 27 none
    of these was in audit/core/run_end.py's list, and the run ended with exit 1."""
    began = time.time() - 10
    assert refused_input([_log(tmp_path, "lock.log", f"{line}\n")], began) == [line]


@pytest.mark.parametrize(
    "line",
    [
        "error[missing_file]: results/demo/recompute/pandas/run1/census.csv: no such file",
        "error[hash_mismatch]: results/hf/bundle/hf/x.parquet: sha256 0 but a/b@c recorded 1",
    ],
)
@pytest.mark.parametrize("job", ["fetch_hf", "adapt_trials", "lock", "census", "annex"])
def test_a_missing_file_is_the_inputs_only_where_the_input_is_first_read(
    tmp_path: Path, line: str, job: str
) -> None:
    """missing_file and hash_mismatch are input refusals from the jobs that read the
    input as shipped (the Hub fetch, the trials adapter, the lock); from a later job
    (the census, the annex) they are a fault of the run, a contestant's output or a
    locked file gone, which the same command redoes: no exit 2 and no advice to audit
    a new arm. After 40cc0f0 every job's missing_file was the input's."""
    began = time.time() - 10
    got = refused_input([_log(tmp_path, f"{job}.log", f"{line}\n")], began)
    assert got == ([line] if job in ("fetch_hf", "adapt_trials", "lock") else [])
