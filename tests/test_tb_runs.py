"""tb-run-v1 (docs/trials-contract.md section 16): the adapter on hand-made submissions,
the zero-trial refusal of both formats, and the run-level statistics of both contestants
against values worked out by hand (comments say how)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from audit.trials import stats
from tests.conftest import impl_python, run, run_audit


def _run_file(path: Path, trials: list[dict], acc: float, n_res: int) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = json.dumps(
        {"id": "run-" + path.parent.name, "results": trials, "accuracy": acc, "n_resolved": n_res}
    ).encode()
    path.write_bytes(raw)
    return raw


def _t(task: str, resolved, tid: str, key: str = "id", fm: str = "unset", name=None) -> dict:
    return {
        key: tid,
        "task_id": task,
        "trial_name": name or f"{task}.1-of-1.x",
        "is_resolved": resolved,
        "failure_mode": fm,
    }


@pytest.fixture
def subs(tmp_path: Path) -> Path:
    """e1: run folder r1 (a resolved, b null / test_timeout, uuid) with one trial file and
    a nested copy of itself; e2: two run-level files only (a, b each)."""
    jobs = tmp_path / "results"
    r1 = [_t("a", True, "x1"), _t("b", None, "x2", key="uuid", fm="test_timeout")]
    raw = _run_file(jobs / "e1" / "r1" / "results.json", r1, 0.5, 1)
    (jobs / "e1" / "r1" / "a" / "a.1-of-1.x").mkdir(parents=True)
    (jobs / "e1" / "r1" / "a" / "a.1-of-1.x" / "results.json").write_text(json.dumps(r1[0]))
    (jobs / "e1" / "r1" / "r1copy").mkdir()
    (jobs / "e1" / "r1" / "r1copy" / "results.json").write_bytes(raw)
    (jobs / "e1" / "README.md").write_text("notes")
    e2 = jobs / "e2"
    _run_file(e2 / "s1_results.json", [_t("a", True, "y1"), _t("b", False, "y2")], 0.5, 1)
    _run_file(e2 / "s2_results.json", [_t("a", True, "z1"), _t("b", True, "z2")], 1.0, 2)
    return jobs


def _adapt(jobs: Path, out: Path, rule: str = "once"):
    return run_audit(
        "adapt-trials",
        "--jobs",
        jobs,
        "--format",
        "tb-run-v1",
        "--duplicates",
        rule,
        "--min-tries",
        "5",
        "--out",
        out,
    )


def test_adapter_runs_duplicates_and_skipped(subs: Path, tmp_path: Path) -> None:
    res = _adapt(subs, tmp_path / "o")
    assert res.code == 0, res.stderr
    t = pl.read_parquet(tmp_path / "o" / "trials.parquet")
    doc = json.loads((tmp_path / "o" / "adapter.json").read_text())
    # e1: 2 trials (the nested copy is not read), e2: 4 trials in two runs
    assert t.height == 6
    e1 = t.filter(pl.col("run") == "e1").sort("task")
    assert e1["trial_id"].to_list() == ["x1", "x2"]  # uuid taken when id is absent
    assert e1["status"].to_list() == ["scored", "unscored"]
    assert e1["failure_mode"].to_list() == ["unset", "test_timeout"]  # null keeps its mode
    assert e1["reward"].to_list() == [1.0, None]
    assert e1["attempt"].to_list() == [1, 1]
    assert sorted(t.filter(pl.col("run") == "e2")["tb_run"].unique().to_list()) == ["s1", "s2"]
    runs = doc["entries"]["e1"]["runs"]
    assert runs["r1/r1copy"]["counted"] is False
    assert runs["r1/r1copy"]["nested_in"] == "r1" and runs["r1/r1copy"]["duplicate_of"] == "r1"
    cc = runs["r1"]["crosscheck"]
    assert cc["accuracy_agrees"] and cc["n_resolved_recomputed"] == 1
    assert cc["trial_files_agree"] == 1 and cc["listed_without_trial_file"] == ["x2"]
    board = doc["entries"]["e1"]["board"]
    assert board["tasks_below_min_tries"] == 2 and board["no_result_by_failure_mode"] == {
        "test_timeout": 1
    }
    skipped = {f["path"]: f["reason"] for f in doc["skipped"]}
    assert skipped["e1/README.md"] == "not a file tb-run-v1 reads"
    assert "duplicate" in skipped["e1/r1/r1copy/results.json"]
    # as_shipped: the nested copy is a run; its trials are copies 1 of the same ids
    res = _adapt(subs, tmp_path / "o2", "as_shipped")
    assert res.code == 0, res.stderr
    t2 = pl.read_parquet(tmp_path / "o2" / "trials.parquet")
    assert t2.filter(pl.col("run") == "e1").height == 4
    assert t2.filter(pl.col("copy") == 1).height == 2


def test_zero_trials_refused_both_formats(tmp_path: Path) -> None:
    (tmp_path / "tb" / "e" / "r").mkdir(parents=True)
    res = _adapt(tmp_path / "tb", tmp_path / "o")
    assert res.code == 2 and res.stderr.startswith("error[no_trials]: ")
    assert "results.json" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()
    (tmp_path / "jobs" / "run" / "trial").mkdir(parents=True)
    res = run_audit(
        "adapt-trials",
        "--jobs",
        tmp_path / "jobs",
        "--format",
        "harbor-trial-v1",
        "--out",
        tmp_path / "o3",
    )
    assert res.code == 2 and "error[no_trials]" in res.stderr and "result.json" in res.stderr


def test_pass_at_k_refuses_fewer_tries_than_k() -> None:
    # Before the fix, n < k divided by C(n, k) = 0 (ZeroDivisionError).
    with pytest.raises(ValueError, match="tries < k"):
        stats.pass_at_k(2, 1, 3)
    with pytest.raises(ValueError, match="k must be >= 1"):
        stats.pass_pow_k(2, 1, 0)
    assert stats.pass_at_k(2, 1, 2) == 1  # 1 - C(1,2)/C(2,2) = 1


PREREG = """version: 1
kind: trials
name: tb-hand
source: {kind: trials, format: tb-run-v1, jobs: results, table: trials.parquet,
         duplicates: once, min_tries: 5}
leaderboard: null
policies: {}
scale: 1
rounding: half_even
tolerances: {}
seed: 1
bootstrap_draws: 4
null_draws: 4
controls: {}
compare: null
runs: {unit: tb_run, pass_k: [1, 2, 3]}
disclosure: {auditor: the tests, relations: [], publication: not published}
"""


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_run_statistics_by_hand(impl: str, impl_envs, subs: Path, tmp_path: Path) -> None:
    assert _adapt(subs, tmp_path / "b").code == 0
    (tmp_path / "p.yaml").write_text(PREREG)
    res = run(
        [
            str(impl_python(impl)),
            "-m",
            f"impl_{impl}.trials",
            "--prereg",
            str(tmp_path / "p.yaml"),
            "--bundle",
            str(tmp_path / "b"),
            "--out",
            str(tmp_path / impl),
        ]
    )
    assert res.code == 0, res.stderr
    rows = (tmp_path / impl / "runs.csv").read_text().splitlines()
    e2 = next(r for r in rows if r.startswith("e2,attempted,"))
    # e2: run s1 = (1, 0) -> 0.5, s2 = (1, 1) -> 1. mean 0.75; sample SD sqrt(0.125) =
    # 0.353553, / sqrt 2 = 0.25; population SD 0.25, / sqrt 2 = 0.176777. pooled 3/4,
    # binomial sqrt(0.75*0.25/4) = 0.216506. Clusters (tasks): a: (1-.75)+(1-.75) = 0.5,
    # b: (0-.75)+(1-.75) = -0.5; sqrt(0.25+0.25)/4 = 0.176777; Inspect x sqrt(2/1) = 0.25.
    assert e2 == (
        "e2,attempted,tb_run,2,4,0.500000;1.000000,0.750000,0.250000,0.176777,"
        "0.750000,0.216506,0.176777,0.250000"
    )
    # e1 attempted: one run, (1, 0): no SE over runs; scored: b left out, 1 trial.
    assert next(r for r in rows if r.startswith("e1,attempted,")).split(",")[6:9] == [
        "0.500000",
        "",
        "",
    ]
    pk = (tmp_path / impl / "pass_k.csv").read_text().splitlines()
    # e2 per task (n, c): a (2, 2), b (2, 1). pass@1 = (1 + .5)/2; pass@2 = (1 + 1)/2,
    # pass^2 = (1 + 0)/2; k = 3: both tasks have 2 tries < 3, left out, no value.
    assert "e2,attempted,1,2,0,0.750000,0.750000" in pk
    assert "e2,attempted,2,2,0,1.000000,0.500000" in pk
    assert "e2,attempted,3,0,2,," in pk


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_pass_k_zero_refused(impl: str, impl_envs, subs: Path, tmp_path: Path) -> None:
    assert _adapt(subs, tmp_path / "b").code == 0
    (tmp_path / "p.yaml").write_text(PREREG.replace("pass_k: [1, 2, 3]", "pass_k: [0]"))
    res = run(
        [
            str(impl_python(impl)),
            "-m",
            f"impl_{impl}.trials",
            "--prereg",
            str(tmp_path / "p.yaml"),
            "--bundle",
            str(tmp_path / "b"),
            "--out",
            str(tmp_path / impl),
        ]
    )
    assert res.code == 2 and res.stderr.startswith("error[bad_prereg]: ")


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_attempts_as_runs(impl: str, impl_envs, tmp_path: Path) -> None:
    """One tb run holding two attempts per task (n_attempts: 2, trial names <task>.<k>-of-2,
    as the Terminal-Bench Orchestrator submission ships five): under ``runs: {unit:
    attempt}`` each attempt is a replicate, so the spread over attempts is computable;
    under ``unit: tb_run`` the entry has one run and no spread over runs."""
    jobs = tmp_path / "results"
    trials = [
        _t("a", True, "t1", name="a.1-of-2.x"),
        _t("a", False, "t2", name="a.2-of-2.x"),
        _t("b", True, "t3", name="b.1-of-2.x"),
        _t("b", True, "t4", name="b.2-of-2.x"),
    ]
    _run_file(jobs / "e3" / "r1" / "results.json", trials, 0.75, 3)
    assert _adapt(jobs, tmp_path / "b").code == 0
    for unit in ("attempt", "tb_run"):
        (tmp_path / "p.yaml").write_text(PREREG.replace("unit: tb_run", f"unit: {unit}"))
        out = tmp_path / f"{impl}-{unit}"
        res = run(
            [
                str(impl_python(impl)),
                "-m",
                f"impl_{impl}.trials",
                "--prereg",
                str(tmp_path / "p.yaml"),
                "--bundle",
                str(tmp_path / "b"),
                "--out",
                str(out),
            ]
        )
        assert res.code == 0, res.stderr
        row = next(
            r for r in (out / "runs.csv").read_text().splitlines() if r.startswith("e3,attempted,")
        )
        if unit == "attempt":
            # attempt 1: (a 1, b 1) -> 1; attempt 2: (a 0, b 1) -> 0.5. By hand as e2 above:
            # mean 0.75, sample SE 0.25, population 0.176777; pooled 3/4, binomial 0.216506;
            # clusters a: 1 - 2(.75) = -.5, b: 2 - 1.5 = .5 -> 0.176777, Inspect 0.25.
            assert row == (
                "e3,attempted,attempt,2,4,1.000000;0.500000,0.750000,0.250000,0.176777,"
                "0.750000,0.216506,0.176777,0.250000"
            )
        else:  # one run of the four trials: its rate 0.75, no spread over runs
            assert row.split(",")[2:9] == ["tb_run", "1", "4", "0.750000", "0.750000", "", ""]
