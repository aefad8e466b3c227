"""Trial-level arms through the whole DAG: the SkillsBench registry and the BenchFlow sample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, annex_head, read_csv_rows, run_audit, run_dag

SHARED = (ROOT / ".." / "shared" / "bundles").resolve()


def _bundle(name: str) -> Path:
    path = SHARED / name
    if not path.is_dir():
        pytest.skip(f"real bundle not present at ../shared/bundles/{name}")
    return path


@pytest.mark.slow
@pytest.mark.realbundle
def test_registry_arm_end_to_end(arm_run, tmp_path: Path) -> None:
    bundle = _bundle("skillsbench-registry")
    res = arm_run(
        "skillsbench-registry", "skillsbench-registry"
    )  # run once per session (tests/conftest.py)
    agreement = json.loads((res / "agreement.json").read_text())
    assert agreement["disagreements"] == 0
    census = {
        (r["row_id"], r["column"]): r
        for r in read_csv_rows(res / "recompute" / "pandas" / "run1" / "census.csv")
    }
    classes = [r["class"] for r in census.values()]
    # 6 published entries: the five With-Skills rows publish no interval (not_published);
    # every published score and the DeepSeek interval reproduce (docs/trials-contract.md §14)
    assert classes.count("not_published") == 5
    assert classes.count("divergent") == 0
    # the registry controls, measured by both contestants as predicted: 3 of the DeepSeek
    # No Skills entry's 87 all-pass cells made all-fail, the macro falls by 100 * 3/87
    controls = read_csv_rows(res / "controls.csv")
    assert {(r["kind"], r["verdict"]) for r in controls} == {("flip", "pass"), ("drop", "pass")}
    flip = {
        (r["policy"], r["measure"]): r
        for r in read_csv_rows(res / "controls" / "flip_deepseek_no_skills_3" / "check.csv")
    }
    assert flip[("E", "reward_macro")]["predicted_change"] == "-3.448276"
    assert flip[("S", "reward_macro")]["pandas_after"] == "24.041379"
    assert run_audit("verify", res / "annex").code == 0

    # A second seat reruns the locked method from the annex alone, on the same
    # bundle, and reproduces every non-volatile file of the first seat's annex.
    second = tmp_path / "second"
    q = run_dag(
        second,
        "--configfile",
        str(ROOT / "config" / "skillsbench-registry.yaml"),
        "--config",
        "seat=second",
        f"annex={res / 'annex'}",
        f"head={annex_head(res / 'annex')}",
        f"bundle={bundle}",
    )
    assert q.returncode == 0, q.stderr[-3000:]
    cmp = run_audit(
        "compare-annex", res / "annex", second / "results" / "skillsbench-registry" / "annex"
    )
    assert cmp.code == 0, cmp.stdout
    assert "verdict: every non-volatile file identical" in cmp.stdout


@pytest.mark.slow
@pytest.mark.realbundle
def test_benchflow_sample_arm_end_to_end(arm_run) -> None:
    res = arm_run(
        "benchflow-sample", "benchflow-trials-sample"
    )  # run once per session (tests/conftest.py)
    assert json.loads((res / "agreement.json").read_text())["disagreements"] == 0
    entries = {
        (r["entry"], r["policy"]): r
        for r in read_csv_rows(res / "recompute" / "pyarrow" / "run1" / "entries.csv")
    }
    # docs/trials-contract.md §14, worked from the result.json files apart from the adapter
    # and the contestants by tests/reference/benchflow_sample.py (run here): no_skills has
    # 6 tasks, 30 trials (24 scored, 1 errored, 5 unscored); over attempted trials the
    # task-macro mean reward x 100 is 31.533333 with a Method D half-width 29.557539
    from tests.reference import benchflow_sample

    jobs = _bundle("benchflow-trials-sample") / "jobs"
    for run in ("no_skills", "skills"):
        want = benchflow_sample.entry(benchflow_sample.trials(jobs / run))
        assert {k: entries[(run, "attempted")][k] for k in want} == {
            k: str(v) for k, v in want.items()
        }
    att = entries[("no_skills", "attempted")]
    assert (att["tasks"], att["selected"], att["scored"], att["errored"], att["unscored"]) == (
        "6",
        "30",
        "24",
        "1",
        "5",
    )
    assert (att["reward_macro"], att["reward_ci95"]) == ("31.533333", "29.557539")
    # the trial controls, each measured by both contestants as predicted. By hand from
    # the trial table: skills has 5 tasks, attempted task means 3d-scan-calc 1,
    # adaptive-cruise-control 0, citation-check 1/5, crystallographic 3.64/5, dapt 0:
    # macro 38.56. Flipping 2 of 3d-scan-calc's five 1.0 rewards: 1 -> 3/5, the macro
    # falls by 100 * (2/5)/5 = 8. Reversing citation-check's start times (rewards 0 0 0 0 1
    # in start order) gives first3 (1, 0, 0) for (0, 0, 0): +100 * (1/3)/5 = +6.666667.
    assert {r["verdict"] for r in read_csv_rows(res / "controls.csv")} == {"pass"}
    assert {r["kind"] for r in read_csv_rows(res / "controls.csv")} == {
        "flip",
        "drop",
        "duplicate",
        "reorder_starts",
    }

    def measured(control: str) -> dict:
        rows = read_csv_rows(res / "controls" / control / "check.csv")
        return {(r["entry"], r["policy"], r["measure"]): r for r in rows}

    flip = measured("flip_skills_2")[("skills", "attempted", "reward_macro")]
    assert (flip["pandas_after"], flip["pyarrow_after"]) == ("30.560000", "30.560000")
    order = measured("reorder_starts_skills")
    assert order[("skills", "first3", "reward_macro")]["pyarrow_after"] == "40.600000"
    assert order[("skills", "last3", "reward_macro")]["pandas_after"] == "31.533333"
    # a duplicate moves the policy that keeps copies, and no policy that drops them
    dup = measured("duplicate_no_skills")
    assert dup[("no_skills", "with_copies", "reward_macro")]["predicted_change"] != "+0.000000"
    assert dup[("no_skills", "attempted", "reward_macro")]["predicted_change"] == "+0.000000"
    events = [json.loads(x)["event"] for x in (res / "ledger.jsonl").read_text().splitlines()]
    assert events.count("bundle_perturbed") == 4
    assert events.index("prediction_stamped") < events.index("bundle_perturbed")
    assert run_audit("verify", res / "annex").code == 0
