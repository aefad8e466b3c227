"""Input a job refuses after the lock ends the run as a refusal: one line, exit 2.

Some input can only be judged once a job runs (a row listing more instances than its
declared fixed denominator is found as the values are recomputed: docs/refusals.md,
"Where each class is refused"). Such a run used to end with Snakemake's exit 1 and
its error block, the arm locked on the input and nothing saying what to do. Now it
ends with the job's own line and exit 2, and, the arm being locked, a line saying
that the corrected input is a new arm (README, "Auditing another bundle").
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from audit.core.run_end import refused_input
from audit.files import file_blake3
from tests.conftest import IMPLS, ROOT, run_dag, run_impl


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


def test_a_refusal_after_the_lock_ends_with_its_line_and_exit_2(impl_envs, tmp_path, demo_bundle):
    """The demo with alpha_score's denominator declared fixed at 1: its rows list more
    alpha instances than that, which both contestants find only as they recompute,
    after the lock."""
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    old = "alpha_score: {recipe: rate, source: resolved, group: alpha, scale: 100,"
    assert old in text
    prereg = tmp_path / "demo-fixed-1.yaml"
    prereg.write_text(text.replace(old, old + " denominator: {fixed: 1},"), encoding="utf-8")
    # the contestants' own line for it, each run alone (an independent reading)
    lines = set()
    for impl in IMPLS:
        res = run_impl(impl, prereg, demo_bundle, tmp_path / f"alone-{impl}")
        assert res.code == 2, res.stderr
        lines.add(res.stderr.strip())
    assert len(lines) == 1, lines
    want = lines.pop()
    assert want.startswith("error[bad_denominator]: "), want

    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={demo_bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    end = p.stderr.strip().splitlines()[-2:]
    lock = tmp_path / "results" / "demo" / "lock" / "lock.json"
    assert lock.is_file()  # the arm was locked on it: what the second line says
    assert end[0] == want.replace(str(prereg), "results/demo/lock/prereg.yaml"), end
    assert end[1] == (
        "arm 'demo' was locked on this input (results/demo/lock/lock.json) before a job"
        " refused it, and a locked arm takes no other bundle or prereg: correct the input"
        " and audit it under a new arm name (say arm=demo-2; README, 'Auditing another"
        " bundle')"
    )
