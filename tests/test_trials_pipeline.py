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
def test_registry_arm_end_to_end(impl_envs, tmp_path: Path) -> None:
    bundle = _bundle("skillsbench-registry")
    p = run_dag(
        tmp_path,
        "--configfile",
        str(ROOT / "config" / "skillsbench-registry.yaml"),
        "--config",
        f"prereg={ROOT / 'prereg' / 'skillsbench-registry.yaml'}",
        f"bundle={bundle}",
    )
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "skillsbench-registry"
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
def test_benchflow_sample_arm_end_to_end(impl_envs, tmp_path: Path) -> None:
    bundle = _bundle("benchflow-trials-sample")
    p = run_dag(
        tmp_path,
        "--configfile",
        str(ROOT / "config" / "benchflow-sample.yaml"),
        "--config",
        f"prereg={ROOT / 'prereg' / 'benchflow-sample.yaml'}",
        f"bundle={bundle}",
    )
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "benchflow-sample"
    assert json.loads((res / "agreement.json").read_text())["disagreements"] == 0
    entries = {
        (r["entry"], r["policy"]): r
        for r in read_csv_rows(res / "recompute" / "pyarrow" / "run1" / "entries.csv")
    }
    # docs/trials-contract.md §14, worked from the result.json files by a separate script:
    # no_skills has 6 tasks, 30 trials (24 scored, 1 errored, 5 unscored); over attempted
    # trials the task-macro mean reward x 100 is 31.533333 with a Method D half-width 29.557539
    att = entries[("no_skills", "attempted")]
    assert (att["tasks"], att["selected"], att["scored"], att["errored"], att["unscored"]) == (
        "6",
        "30",
        "24",
        "1",
        "5",
    )
    assert (att["reward_macro"], att["reward_ci95"]) == ("31.533333", "29.557539")
    assert run_audit("verify", res / "annex").code == 0
