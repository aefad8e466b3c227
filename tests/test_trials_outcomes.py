"""Broken verifiers, regrades, outcome classes, policies, exact intervals and power
(docs/trials-contract.md sections 2.7 and 11.5 to 11.7), on BenchFlow-style folders
built here. Every expected value is worked by hand in the comments (section 15.4)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from scipy import stats as sps

from audit.adapters.formats import adapt
from audit.adapters.verifiers import broken_reason
from audit.trials import stats
from audit.trials.compare_runs import compare
from audit.trials.metrics import metrics
from tests.conftest import run_audit

# (task, trial id, kind, reward, regrade): kinds are "scored", "broken" (a
# `Verifier scored 0:` warning, reward 0.0), "infra" (exception, agent never ran),
# "agent" (exception after the agent ran, verifier never ran), "unscored"
# (exception, verifier ran, no reward).
A_TRIALS = [
    ("p", "p1", "scored", 1.0, None),
    ("p", "p2", "broken", 0.0, 1.0),
    ("q", "q1", "scored", 1.0, None),
    ("q", "q2", "scored", 1.0, None),
    ("r", "r1", "scored", 0.0, None),
    ("r", "r2", "infra", None, None),
]
B_TRIALS = [
    ("p", "p1", "scored", 0.0, None),
    ("p", "p2", "scored", 0.0, None),
    ("q", "q1", "scored", 1.0, None),
    ("q", "q2", "broken", 0.0, None),
    ("r", "r1", "scored", 0.0, None),
    ("r", "r2", "agent", None, None),
    ("s", "s1", "unscored", None, None),
]
WARNINGS = {
    "A": "Verifier scored 0: test script crashed with exit code 1",
    "B": "Verifier scored 0: test script timed out after 600 s",
}


def _trial(folder: Path, run: str, task: str, tid: str, kind: str, reward, regrade, agent="x"):
    folder.mkdir(parents=True)
    doc: dict[str, Any] = {
        "id": f"{run}{tid}",
        "task_name": task,
        "exception_info": None,
        "verifier": {},
        "agent_execution": {},
        "verifier_result": None,
        "config": {"agent": {"name": agent}},
    }
    if kind in ("scored", "broken"):
        doc["verifier_result"] = {"rewards": {"reward": reward}}
    if kind == "broken":
        doc["warnings"] = ["some other note", WARNINGS[run]]
    if kind == "infra":
        doc.update(exception_info={"exception_type": "RuntimeError"}, verifier=None)
        doc["agent_execution"] = None
    if kind == "agent":
        doc.update(exception_info={"exception_type": "AgentTimeoutError"}, verifier=None)
    if kind == "unscored":
        doc["exception_info"] = {"exception_type": "RewardFileNotFoundError"}
    (folder / "result.json").write_text(json.dumps(doc), encoding="utf-8")
    if regrade is not None:
        (folder / "regrade.json").write_text(
            json.dumps({"rewards": {"reward": regrade}}), encoding="utf-8"
        )


def build(root: Path) -> Path:
    jobs = root / "jobs"
    for run, data in (("A", A_TRIALS), ("B", B_TRIALS)):
        for task, tid, kind, reward, regrade in data:
            _trial(jobs / run / f"{task}__{tid}", run, task, tid, kind, reward, regrade)
    # a control run: the oracle agent on tasks p and q
    for task in ("p", "q"):
        _trial(
            jobs / "C" / f"{task}__o", "C", task, f"o{task}", "scored", 1.0, None, agent="oracle"
        )
    return jobs


@pytest.fixture
def jobs(tmp_path: Path) -> Path:
    return build(tmp_path)


def test_adapter_records_warnings_and_regrades(jobs: Path) -> None:
    table, doc = adapt(str(jobs))
    rows = {(r["run"], r["trial_id"]): r for r in table.to_dicts()}
    p2 = rows[("A", "Ap2")]
    assert (p2["verifier_broken"], p2["verifier_broken_reason"]) == (True, "crashed")
    assert (p2["reward"], p2["reward_regraded"], p2["status"]) == (0.0, 1.0, "scored")
    assert rows[("B", "Bq2")]["verifier_broken_reason"] == "timed_out"
    assert rows[("A", "Ar2")]["agent_ran"] is False and rows[("B", "Br2")]["agent_ran"] is True
    assert sum(r["verifier_broken"] for r in rows.values()) == 2
    assert doc["runs"]["A"]["verifiers"] == {
        "broken": [{"task": "p", "trial_id": "Ap2", "reason": "crashed"}],
        "regraded": 1,
    }
    assert "A/p__p2/regrade.json" in [f["path"] for f in doc["files"]]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Verifier scored 0: test.sh crashed (exit 2)", "crashed"),
        ("Verifier scored 0: verifier timed out", "timed_out"),
        ("Verifier scored 0: reward 'abc' is non-numeric", "non_numeric"),
        ("Verifier scored 0: reward 3.0 is out of range [0, 1]", "out_of_range"),
        ("Verifier scored 0: reward.txt missing", "other"),
    ],
)
def test_broken_reasons(text: str, reason: str) -> None:
    assert broken_reason(text) == reason


@pytest.mark.parametrize(
    ("content", "kind"),
    [('{"rewards": {"reward": "1"}}', "bad_type"), ('{"reward": 1}', "bad_trial")],
)
def test_bad_regrade_writes_nothing(tmp_path: Path, content: str, kind: str) -> None:
    jobs = build(tmp_path)
    (jobs / "A" / "p__p2" / "regrade.json").write_text(content, encoding="utf-8")
    out = tmp_path / "out"
    res = run_audit("adapt-trials", "--jobs", jobs, "--out", out)
    assert res.code == 2 and not out.exists()
    assert res.stderr.startswith(f"error[{kind}]: ") and "regrade.json" in res.stderr


def _cmp(jobs: Path, reward: str = "original", broken: str = "as_zero", **kw: Any):
    a = kw.pop("a", [str(jobs / "A")])
    return compare(
        a,
        [str(jobs / "B")],
        kw.pop("denominator", "attempted"),
        kw.pop("ks", None),
        1,
        100,
        [],
        reward=reward,
        broken=broken,
        **kw,
    )


def test_classes_and_controls(jobs: Path) -> None:
    # A pooled with the control run C: C's two oracle trials are left out and listed.
    doc, _ = _cmp(jobs, a=[str(jobs / "A"), str(jobs / "C")])
    assert doc["a"]["run"] == "A+C"
    assert doc["control_runs"]["a"] == [{"run": "C", "harness": "oracle", "trials": 2}]
    # A: passed p1 q1 q2; failed r1; broken p2; infrastructure r2; control 2 (of 8 trials)
    assert doc["a"]["classes"] == {
        "passed": 3,
        "failed": 1,
        "unscored": 0,
        "broken_verifier": 1,
        "agent_error": 0,
        "infrastructure_error": 1,
        "control_run": 2,
    }
    assert doc["a"]["trials"] == 8
    # B: passed q1; failed p1 p2 r1; broken q2; agent error r2; unscored s1 (of 7)
    assert doc["b"]["classes"] == {
        "passed": 1,
        "failed": 3,
        "unscored": 1,
        "broken_verifier": 1,
        "agent_error": 1,
        "infrastructure_error": 0,
        "control_run": 0,
    }
    assert doc["only_b"] == ["s"]  # s1 (unscored) counts 0 under attempted
    assert doc["broken_verifiers"]["a"] == {
        "p": [{"trial_id": "Ap2", "run": "A", "reason": "crashed", "regraded": "1.000000"}]
    }
    # under regraded, Ap2 takes its regraded 1.0 and passes
    doc, _ = _cmp(jobs, reward="regraded")
    assert doc["a"]["classes"]["passed"] == 4 and doc["a"]["classes"]["broken_verifier"] == 0
    # under scored, s has no value at all
    doc, _ = _cmp(jobs, denominator="scored")
    assert doc["no_values"] == ["s"]


# Task means (A; B) and d = A - B under each policy, denominator attempted:
#   original, as_zero:      p (1+0)/2=.5; 0   q 1; (1+0)/2=.5   r 0; 0    d .5 .5 0 -> 1/3
#   original, exclude_trial: p 1; 0           q 1; 1            r 0; 0    d 1 0 0   -> 1/3
#   original, exclude_task:  p and q dropped (broken in A, B)   r 0; 0    d 0       -> 0
#   regraded, as_zero:       p 1; 0           q 1; .5           r 0; 0    d 1 .5 0  -> 1/2
#   regraded, exclude_trial: p 1; 0           q 1; 1                      d 1 0 0   -> 1/3
#   regraded, exclude_task:  only q dropped (Ap2 regraded)      p, r      d 1 0     -> 1/2
POLICY_TABLE = [
    ("original", "as_zero", 3, "0.333333"),
    ("original", "exclude_task_both_sides", 1, "0.000000"),
    ("original", "exclude_trial", 3, "0.333333"),
    ("regraded", "as_zero", 3, "0.500000"),
    ("regraded", "exclude_task_both_sides", 2, "0.500000"),
    ("regraded", "exclude_trial", 3, "0.333333"),
]


@pytest.mark.parametrize(("reward", "broken", "tasks", "mean"), POLICY_TABLE)
def test_policies(jobs: Path, reward: str, broken: str, tasks: int, mean: str) -> None:
    doc, _ = _cmp(jobs, reward, broken)
    assert (doc["paired_tasks"], doc["mean_difference"]) == (tasks, mean)
    assert [
        (m["reward"], m["broken"], m["paired_tasks"], m["mean_difference"]) for m in doc["policies"]
    ] == POLICY_TABLE
    if broken == "exclude_task_both_sides":
        assert doc["excluded_tasks"] == (["p", "q"] if reward == "original" else ["q"])


def test_direction_unit_intervals_power(jobs: Path) -> None:
    doc, pairs = _cmp(jobs, difference="B-A", unit="points")
    # d = B - A in points: -50, -50, 0 -> mean -33.333333
    assert doc["mean_difference"] == "-33.333333"
    assert [p["difference"] for p in pairs] == ["-50.000000", "-50.000000", "0.000000"]
    # passes on the paired tasks: A 3 of 6 (p1 q1 q2), B 1 of 6 (q1)
    assert (doc["a"]["passes"], doc["a"]["values"], doc["b"]["passes"]) == (3, 6, 1)
    ci = sps.binomtest(3, 6).proportion_ci(method="exact")
    assert (doc["a"]["exact_low"], doc["a"]["exact_high"]) == (f"{ci.low:.6f}", f"{ci.high:.6f}")
    # power, by hand: p1 = 1/2, p2 = 1/6, pbar = 1/3; z(0.975) = 1.959964, z(0.8) = 0.841621
    # (1.959964 * sqrt(2/3 * 2/3... = 4/9) + 0.841621 * sqrt(1/4 + 5/36)) / (1/3)
    # = (1.306643 + 0.524844) * 3 = 5.494461; squared 30.189 -> 31 trials per arm
    pw = doc["power"]
    assert (pw["trials_per_arm"], pw["trials_a"], pw["enough"]) == (31, 6, False)
    assert pw["min_tasks_sign_flip"] == 6
    # default ks: 1 and the fewest values any paired task has in either arm (2)
    assert [e["k"] for e in doc["pass_k"]] == [1, 2]
    # pass@2 difference B - A in points: A p 1, q 1, r 0 -> 2/3; B p 0, q 1, r 0 -> 1/3
    assert doc["pass_k"][1]["diff_pass_at_k"] == "-33.333333"


def test_pass_k_notes_tasks_left_out(jobs: Path) -> None:
    # exclude_trial leaves A's p and B's q with one value each: default ks are [1]
    doc, _ = _cmp(jobs, broken="exclude_trial")
    assert [e["k"] for e in doc["pass_k"]] == [1]
    doc, pairs = _cmp(jobs, broken="exclude_trial", ks=[1, 2])
    k2 = doc["pass_k"][1]
    assert k2["left_out_tasks"] == [
        {"task": "p", "a_values": 1, "b_values": 2},
        {"task": "q", "a_values": 2, "b_values": 1},
    ]
    from audit.trials.compare_runs import render

    text = render(doc, pairs)
    assert (
        "k = 2: p left out of pass@k and pass^k: it has 1 value(s) in A and 2 in B, "
        "and both must be >= 2" in text
    )
    assert (
        "k = 2: q left out of pass@k and pass^k: it has 2 value(s) in A and 1 in B, "
        "and both must be >= 2" in text
    )


def test_cli_pooled_arms_and_broken_first(jobs: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    res = run_audit(
        "compare-runs",
        "--a",
        jobs / "A",
        "--a",
        jobs / "C",
        "--b",
        jobs / "B",
        "--denominator",
        "attempted",
        "--seed",
        "1",
        "--draws",
        "10",
        "--difference",
        "B-A",
        "--unit",
        "points",
        "--out",
        out,
    )
    assert res.code == 0, res.stderr
    lines = res.stdout.splitlines()
    # the headline (what is compared) comes first; the broken verifiers follow it, A before B
    assert lines[0] == "compare-runs: A = A+C, B = B; difference B - A, in points"
    k = lines.index("broken verifiers in A (A+C): 1 trial(s)")
    assert lines[k + 1] == "  p: Ap2 (crashed, regraded 1.000000)"
    # B's Bq2 timed out (the fixture): one broken verifier in B, listed after A's
    assert lines.index("broken verifiers in B (B): 1 trial(s)") > k
    assert "control run left out of A: C (harness oracle, 2 trials)" in res.stdout
    assert json.loads((out / "compare.json").read_text(encoding="utf-8"))["unit"] == "points"


@pytest.mark.parametrize(
    ("k", "n"), [(0, 1), (1, 1), (3, 3), (0, 3), (3, 6), (1, 6), (8, 25), (25, 25), (7, 87)]
)
def test_clopper_pearson_against_scipy(k: int, n: int) -> None:
    ci = sps.binomtest(k, n).proportion_ci(method="exact")
    low, high = stats.clopper_pearson(k, n)
    assert low == pytest.approx(ci.low, abs=1e-12) and high == pytest.approx(ci.high, abs=1e-12)


def test_three_of_three() -> None:
    # the exact 95% interval of 3/3 is [0.025^(1/3), 1] = [0.292402, 1]
    low, high = stats.clopper_pearson(3, 3)
    assert (f"{low:.6f}", high) == (f"{0.025 ** (1 / 3):.6f}", 1.0)


def test_power_formula_by_hand() -> None:
    # 0.5 against 0.3 at alpha 0.05, power 0.8: pbar 0.4,
    # (1.959964 * sqrt(0.48) + 0.841621 * sqrt(0.46)) / 0.2 = (1.357905 + 0.570815) / 0.2
    # = 9.643600; squared 92.999 -> 93 per arm (the textbook figure for 50% vs 30%)
    by_hand = ((1.959964 * math.sqrt(0.48) + 0.841621 * math.sqrt(0.46)) / 0.2) ** 2
    assert math.ceil(by_hand) == 93
    assert stats.trials_per_arm(0.5, 0.3, 0.05, 0.8) == 93
    assert stats.trials_per_arm(0.3, 0.5, 0.05, 0.8) == 93
    assert stats.trials_per_arm(0.4, 0.4, 0.05, 0.8) is None
    # 2/2^5 = 0.0625 > 0.05 >= 2/2^6; 2/2^4 = 0.125 > 0.1 >= 2/2^5
    assert (stats.min_tasks_sign_flip(0.05), stats.min_tasks_sign_flip(0.1)) == (6, 5)


def test_metrics_single_run(jobs: Path, tmp_path: Path) -> None:
    doc = metrics(str(jobs / "A"), None, "attempted", "original", "as_zero", None)
    # p [1, 0], q [1, 1], r [0, 0]: means .5, 1, 0 -> score 50; 3 of 6 pass
    assert (doc["score"], doc["mean_reward"], doc["solve_rate"]) == (
        "50.000000",
        "0.500000",
        "0.500000",
    )
    assert doc["tasks_solved"] == 2 and doc["tries_per_task"] == {"p": 2, "q": 2, "r": 2}
    # pass@2: p 1, q 1, r 0 -> 2/3; pass^2: p 0, q 1, r 0 -> 1/3
    _k1, k2 = doc["pass_k"]
    assert (k2["k"], k2["pass_at_k"], k2["pass_pow_k"]) == (2, "0.666667", "0.333333")
    assert doc["classes"]["infrastructure_error"] == 1
    doc = metrics(str(jobs / "A"), None, "attempted", "regraded", "as_zero", None)
    assert doc["score"] == "66.666667"  # p becomes [1, 1]: (1 + 1 + 0) / 3
    res = run_audit("metrics", jobs / "A", "--json", "--out", tmp_path / "m")
    assert res.code == 0, res.stderr
    assert json.loads(res.stdout)["runs"][0]["score"] == "50.000000"
    assert (tmp_path / "m" / "metrics.txt").is_file()


# --- the contestants (section 6.3) ---------------------------------------------------

POLICY = "{select: all, k: null, copies: drop, errored: zero, unscored: zero, empty_slots: ignore, slots: null"
PREREG = f"""version: 1
kind: trials
name: broken-verifiers
source: {{kind: trials, format: harbor-trial-v1, jobs: jobs, table: trials.parquet}}
leaderboard: null
policies:
  orig_trial: {POLICY}, broken_verifier: exclude_trial, description: x}}
  orig_task: {POLICY}, reward: original, broken_verifier: exclude_task_both_sides, description: x}}
  regr_zero: {POLICY}, reward: regraded, description: x}}
  regr_task: {POLICY}, reward: regraded, broken_verifier: exclude_task_both_sides, description: x}}
scale: 100
rounding: half_even
tolerances: {{}}
seed: 1
bootstrap_draws: 10
null_draws: 10
controls: {{}}
compare: {{a: A, b: B, denominator: attempted, k: [1], draws: 10, under_study: [],
  difference: B-A, unit: points, reward: regraded, broken: exclude_trial, alpha: 0.1, power: 0.9}}
disclosure: {{auditor: the tests, relations: [], publication: not published}}
"""

# (entry, policy) -> (tasks, tasks_left_out, reward_macro), scale 100, by hand:
#   attempted (= original, as_zero): A p .5, q 1, r 0 -> 50; B p 0, q .5, r 0, s 0 -> 12.5
#   orig_trial: A p 1 (p2 out), q 1, r 0 -> 66.666667; B p 0, q 1 (q2 out), r 0, s 0 -> 25
#   orig_task: p (A) and q (B) leave every entry: A r 0 -> 0; B r, s 0 -> 0; C nothing left
#   regr_zero: A p 1 (p2 regraded 1), q 1, r 0 -> 66.666667; B as attempted -> 12.5
#   regr_task: only q leaves (Ap2 regraded): A p 1, r 0 -> 50; B p 0, r 0, s 0 -> 0
ENTRIES = {
    ("A", "attempted"): ("3", "0", "50.000000"),
    ("B", "attempted"): ("4", "0", "12.500000"),
    ("A", "orig_trial"): ("3", "0", "66.666667"),
    ("B", "orig_trial"): ("4", "0", "25.000000"),
    ("A", "orig_task"): ("1", "2", "0.000000"),
    ("B", "orig_task"): ("2", "2", "0.000000"),
    ("C", "orig_task"): ("0", "2", ""),
    ("A", "regr_zero"): ("3", "0", "66.666667"),
    ("B", "regr_zero"): ("4", "0", "12.500000"),
    ("A", "regr_task"): ("2", "1", "50.000000"),
    ("B", "regr_task"): ("3", "1", "0.000000"),
}


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_contestants_apply_the_policies(impl_envs, tmp_path: Path, impl: str) -> None:
    from tests.conftest import impl_python, read_csv_rows, run

    jobs = build(tmp_path)
    bundle = tmp_path / "bundle"
    assert run_audit("adapt-trials", "--jobs", jobs, "--out", bundle).code == 0
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(PREREG, encoding="utf-8")
    from audit.trials.prereg import load

    assert load(prereg)["policies"]["regr_task"]["reward"] == "regraded"  # the schema takes it
    out = tmp_path / "out"
    cmd = [str(impl_python(impl)), "-m", f"impl_{impl}", "trials"]
    res = run([*cmd, "--prereg", str(prereg), "--bundle", str(bundle), "--out", str(out)])
    assert res.code == 0, res.stderr
    got = {
        (r["entry"], r["policy"]): (r["tasks"], r["tasks_left_out"], r["reward_macro"])
        for r in read_csv_rows(out / "entries.csv")
    }
    for key, want in ENTRIES.items():
        assert got[key] == want, key
    tasks = {(r["entry"], r["policy"], r["task"]): r for r in read_csv_rows(out / "tasks.csv")}
    # exclude_trial: A's p keeps p1 only; exclude_task_both_sides: every selected row excluded
    t = tasks[("A", "orig_trial", "p")]
    assert (t["selected"], t["scored"], t["excluded"], t["values"]) == ("2", "2", "1", "1")
    t = tasks[("A", "orig_task", "p")]
    assert (t["selected"], t["excluded"], t["values"], t["reward_mean"]) == ("2", "2", "0", "")
    # a bad value in a policy's new key is bad_prereg for both contestants
    prereg.write_text(PREREG.replace("reward: regraded, description", "reward: new, description"))
    res = run([*cmd, "--prereg", str(prereg), "--bundle", str(bundle), "--out", str(out / "x")])
    assert res.code == 2 and res.stderr.startswith("error[bad_prereg]")


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
@pytest.mark.parametrize(
    ("change", "kind"),
    [
        ("broken_as_text", "bad_type"),
        ("broken_null", "bad_value"),
        ("regrade_infinite", "bad_value"),
    ],
)
def test_contestants_refuse_bad_verifier_columns(
    impl_envs, tmp_path: Path, impl: str, change: str, kind: str
) -> None:
    import polars as pl

    from tests.conftest import impl_python, run

    jobs = build(tmp_path)
    bundle = tmp_path / "bundle"
    assert run_audit("adapt-trials", "--jobs", jobs, "--out", bundle).code == 0
    t = pl.read_parquet(bundle / "trials.parquet")
    first = pl.int_range(pl.len()) == 0
    if change == "broken_as_text":
        t = t.with_columns(pl.col("verifier_broken").cast(pl.String))
    elif change == "broken_null":
        t = t.with_columns(
            pl.when(first).then(None).otherwise(pl.col("verifier_broken")).alias("verifier_broken")
        )
    else:
        t = t.with_columns(
            pl.when(first)
            .then(float("inf"))
            .otherwise(pl.col("reward_regraded"))
            .alias("reward_regraded")
        )
    t.write_parquet(bundle / "trials.parquet")
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(PREREG, encoding="utf-8")
    cmd = [str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg", str(prereg)]
    out = tmp_path / "out"
    res = run([*cmd, "--bundle", str(bundle), "--out", str(out)])
    assert res.code == 2 and not out.exists()
    assert res.stderr.startswith(f"error[{kind}]: "), res.stderr


def test_adapter_refuses_warnings_that_are_not_a_list(tmp_path: Path) -> None:
    jobs = build(tmp_path)
    f = jobs / "A" / "p__p1" / "result.json"
    doc = json.loads(f.read_text(encoding="utf-8"))
    doc["warnings"] = "Verifier scored 0: crashed"
    f.write_text(json.dumps(doc), encoding="utf-8")
    res = run_audit("adapt-trials", "--jobs", jobs, "--out", tmp_path / "out")
    assert res.code == 2 and res.stderr.startswith("error[bad_trial]: ")
    assert "warnings is neither null nor a list" in res.stderr


SAMPLE = (
    Path(__file__).resolve().parent.parent
    / ".."
    / "shared"
    / "bundles"
    / "benchflow-trials-sample"
    / "jobs"
)


def test_real_sample_classes_and_metrics() -> None:
    if not SAMPLE.is_dir():
        pytest.skip("sample not present at ../shared/bundles/benchflow-trials-sample/jobs")
    table, doc = adapt(str(SAMPLE))
    # no result.json in the sample carries a warning, and no folder has a regrade.json
    assert not table["verifier_broken"].any() and table["reward_regraded"].null_count() == 55
    assert all(r["verifiers"] == {"broken": [], "regraded": 0} for r in doc["runs"].values())
    # the one errored trial (RuntimeError in agent setup) never reached its agent phase
    assert table.filter(table["status"] == "errored")["agent_ran"].to_list() == [False]
    ns = metrics(str(SAMPLE / "no_skills"), None, "attempted", "original", "as_zero", None)
    sk = metrics(str(SAMPLE / "skills"), None, "attempted", "original", "as_zero", None)
    # section 14: reward_macro under attempted, 31.533333 and 38.560000
    assert (ns["score"], sk["score"]) == ("31.533333", "38.560000")
    # 24 scored (8 at 1.0), 1 errored before the agent ran, 5 unscored
    assert ns["classes"] == {
        "passed": 8,
        "failed": 16,
        "unscored": 5,
        "broken_verifier": 0,
        "agent_error": 0,
        "infrastructure_error": 1,
        "control_run": 0,
    }
    under = ["task_source", "task_checksum", "timeout_multiplier", "force_build"]
    cmp, _ = compare(
        [str(SAMPLE / "no_skills")],
        [str(SAMPLE / "skills")],
        "attempted",
        None,
        20260801,
        10000,
        under,
        difference="B-A",
        unit="points",
    )
    # B - A in points is 100 x (-(A - B)) of section 14: 0.720000; exact 8/25 against scipy
    ci = sps.binomtest(8, 25).proportion_ci(method="exact")
    assert cmp["mean_difference"] == "0.720000"
    assert (cmp["b"]["exact_low"], cmp["b"]["exact_high"]) == (f"{ci.low:.6f}", f"{ci.high:.6f}")
    assert [e["k"] for e in cmp["pass_k"]] == [1, 5]
    assert cmp["power"]["trials_per_arm"] is None  # 8/25 against 8/25
