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
import shutil
import time
from pathlib import Path

import polars as pl
import pytest

from audit.core.run_end import refused_input
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


def test_a_refusal_after_the_lock_ends_with_its_line_and_exit_2(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """An input only the contestants judge, after the lock (docs/refusals.md, row
    ambiguous_value): single values whose leaderboard row ids of kind floating are two
    numbers written alike (1e-07 and 2e-07, both 0.000000: two keys, so no
    duplicate_key), which preflight leaves to the contestants since their canonical
    order is by the id as written (audit/cells/bundle_values.py _row_ids). Here the
    demo's row ids doubles, demo/m1 1e-07, demo/m2 2e-07, demo/m3 3.0, demo/m4 4.0, and
    demo/m1's alpha-00 row of model m1-large beside its m1-base: two values, which both
    contestants refuse for row id '0.000000'. The shipped bundle passes preflight, the
    arm is locked, the contestants' line ends the run with exit 2 and the second line
    says the arm is locked on it. (A single value holding -0.0, this test's input
    before, is now refused before the lock: tests/test_preflight_values.py.)"""
    from tests.test_preflight_values import NUMBERED, _edit, _floating_ids, _floating_prereg

    prereg = _floating_prereg(tmp_path, False)
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    _floating_ids(bundle, {**NUMBERED, "demo/m1": 1e-7, "demo/m2": 2e-7})
    m1_00 = (pl.col("id") == 1e-7) & (pl.col("instance_id") == "alpha-00")
    _edit(
        bundle / "instances.parquet",
        lambda df: df.with_columns(
            pl.when(m1_00).then(pl.lit("m1-large")).otherwise(pl.col("model")).alias("model")
        ),
    )
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    end = p.stderr.strip().splitlines()[-2:]
    assert (tmp_path / "results" / "demo" / "lock" / "lock.json").is_file(), p.stderr[-3000:]
    assert end[0].startswith("error[ambiguous_value]: "), end
    assert end[0].endswith("for row id '0.000000'"), end
    assert end[1] == (
        "arm 'demo' was locked on this input (results/demo/lock/lock.json) before a job"
        " refused it, and a locked arm takes no other bundle or prereg: correct the input"
        " and audit it under a new arm name (say arm=demo-2; README, 'Auditing another"
        " bundle')"
    )


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
    assert refused_input([_log(tmp_path, "j.log", f"{line}\n")], began) == [line]
