"""A control the shipped bundle's values cannot take is refused before any job (issue 27).

Which row, entry or run a control can perturb depends on the bundle's values: a flip
needs k true values in its row, a shift one value there is, a registry flip k cells
whose every trial passed, a trial flip k scored copy-0 trials with reward 1.0. The
controls' prediction job used to find it, after the lock and both recomputes
(error[control], the arm locked on the bad prereg). Now preflight chooses each
control's targets with the controls' own code on the shipped bundle
(audit/preflight.py check_control_targets, check_trials_before_lock) and the
workflow ends with the line that job would print: exit 2, nothing under
results/<arm>/. The counts each case rests on were counted by a reading of the
table of its own (polars filters restating the rule), not the controls' code.
"""

from __future__ import annotations

from pathlib import Path

import blake3
import polars as pl

from audit.adapters.base import Options
from audit.adapters.formats import adapt
from tests.conftest import ROOT, run_dag

SHARED = ROOT.parent / "shared" / "bundles"
REGISTRY = SHARED / "skillsbench-registry"
BENCHFLOW = SHARED / "benchflow-trials-sample"


def _refused(tmp: Path, arm: str, prereg: Path, bundle: Path) -> str:
    """The usual command on (prereg, bundle): exit 2, one error line, nothing under
    results/<arm>/ (no lock). The line."""
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(
        tmp, "--config", f"arm={arm}", f"prereg={prereg}", f"prereg_blake3={digest}",
        f"bundle={bundle}",
    )  # fmt: skip
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert not (tmp / "results" / arm).exists()
    return lines[0]


def _edited(tmp: Path, name: str, shipped: str, old: str, new: str) -> Path:
    text = (ROOT / "prereg" / shipped).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    out = tmp / name
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


# --- a leaderboard arm: the demo bundle (python -m audit demo-bundle) ----------------
# Its instance table, per row and group (counted with polars: rows, resolved true,
# cost not null): m1 alpha 8/3/7, beta 4/2/4; m2 alpha 3/2/3, beta 10/7/10; m3 alpha
# 5/0/0; m4 alpha 4/1/4, beta 2/2/1.


def _demo_counts(bundle: Path) -> dict[tuple[str, str], tuple[int, int, int]]:
    inst = pl.read_parquet(bundle / "instances.parquet")
    per = inst.group_by("id", "group").agg(
        pl.len(), pl.col("resolved").sum(), pl.col("cost").is_not_null().sum()
    )
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in per.iter_rows()}


def test_a_seeded_flip_no_row_can_take(tmp_path: Path, demo_bundle: Path) -> None:
    """flip_m2_beta seeded, 8 true beta values: the most any row has is 7 (demo/m2)."""
    counts = _demo_counts(demo_bundle)
    assert max(t for (_, g), (_, t, _) in counts.items() if g == "beta") == 7
    prereg = _edited(
        tmp_path, "demo-seeded-8.yaml", "demo.yaml",
        "    column: beta_score\n    target: {row_id: demo/m2}\n    size: 2\n",
        "    column: beta_score\n    target: seeded\n    size: 8\n",
    )  # fmt: skip
    line = _refused(tmp_path, "demo", prereg, demo_bundle)
    assert line == "error[control]: control flip_m2_beta: no leaderboard row is eligible"


def test_a_named_row_without_the_value_a_shift_needs(tmp_path: Path, demo_bundle: Path) -> None:
    """shift_seeded_alpha_cost named on demo/m3, whose 5 alpha costs are all null: no
    value to shift."""
    assert _demo_counts(demo_bundle)[("demo/m3", "alpha")] == (5, 0, 0)
    prereg = _edited(
        tmp_path, "demo-shift-m3.yaml", "demo.yaml",
        "    column: alpha_cost\n    target: seeded\n    size: 0.5\n",
        "    column: alpha_cost\n    target: {row_id: demo/m3}\n    size: 0.5\n",
    )  # fmt: skip
    line = _refused(tmp_path, "demo", prereg, demo_bundle)
    assert line == (
        "error[control]: control shift_seeded_alpha_cost: row 'demo/m3' cannot take this"
        " perturbation"
    )


def test_a_flip_larger_than_its_row_can_take(tmp_path: Path, demo_bundle: Path) -> None:
    """flip_m2_beta of 8 true beta values on demo/m2, which has 7 (of 10)."""
    assert _demo_counts(demo_bundle)[("demo/m2", "beta")] == (10, 7, 10)
    prereg = _edited(
        tmp_path, "demo-flip-8.yaml", "demo.yaml",
        "    column: beta_score\n    target: {row_id: demo/m2}\n    size: 2\n",
        "    column: beta_score\n    target: {row_id: demo/m2}\n    size: 8\n",
    )  # fmt: skip
    line = _refused(tmp_path, "demo", prereg, demo_bundle)
    assert line == (
        "error[control]: control flip_m2_beta: row 'demo/m2' cannot take this perturbation"
    )


# --- a trials arm on a registry: the shipped SkillsBench registry --------------------


def test_a_registry_entry_that_cannot_take_the_flip(tmp_path: Path) -> None:
    """flip_deepseek_no_skills_3 of 11 cells: the entry has 10 cells whose every trial
    passed (passCount = perfectCount = trials, score 100)."""
    reg = pl.read_parquet(REGISTRY / "registry.parquet")
    mine = reg.filter(
        (pl.col("model") == "OpenHands (DeepSeek V4 Flash)") & (pl.col("condition") == "No Skills")
    )
    n = pl.col("trials")
    passed = (pl.col("passCount") == n) & (pl.col("perfectCount") == n) & (pl.col("score") == 100)
    assert mine.filter(passed).height == 10
    prereg = _edited(
        tmp_path, "registry-flip-11.yaml", "skillsbench-registry.yaml",
        '    target: {entry: "OpenHands (DeepSeek V4 Flash)|No Skills"}\n    size: 3\n',
        '    target: {entry: "OpenHands (DeepSeek V4 Flash)|No Skills"}\n    size: 11\n',
    )  # fmt: skip
    line = _refused(tmp_path, "skillsbench-registry", prereg, REGISTRY)
    assert line == (
        "error[control]: control flip_deepseek_no_skills_3: entry 'OpenHands (DeepSeek V4"
        " Flash)|No Skills' cannot take this perturbation"
    )


# --- a trials arm on a trials source: the shipped BenchFlow jobs --------------------


def test_a_run_that_cannot_take_the_flip(tmp_path: Path) -> None:
    """flip_skills_2 of 9 trials: the adapted table's run `skills` has 8 copy-0 trials
    scored with reward 1.0 and a verifier that is not broken."""
    table, _ = adapt(str(BENCHFLOW / "jobs"), "harbor-trial-v1", Options())
    hits = table.filter(
        (pl.col("run") == "skills")
        & (pl.col("copy") == 0)
        & (pl.col("status") == "scored")
        & (pl.col("reward") == 1.0)
        & ~pl.col("verifier_broken").fill_null(False)
    )
    assert hits.height == 8
    prereg = _edited(
        tmp_path, "benchflow-flip-9.yaml", "benchflow-sample.yaml",
        "    target: {run: skills}\n    size: 2\n",
        "    target: {run: skills}\n    size: 9\n",
    )  # fmt: skip
    line = _refused(tmp_path, "benchflow-sample", prereg, BENCHFLOW)
    assert line == (
        "error[control]: control flip_skills_2: run 'skills' cannot take this perturbation"
    )
