"""compare-runs (docs/trials-contract.md section 11): against scipy and against the
hand-worked example of section 15.3 and the expected values of section 14."""

from __future__ import annotations

import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from scipy import stats as sps

from audit.trials import stats
from tests.conftest import ROOT, run_audit

SAMPLE = ROOT / ".." / "shared" / "bundles" / "benchflow-trials-sample" / "jobs"


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 10, 30, 86, 200, 1000])
def test_t_quantile_against_scipy(df: int) -> None:
    want = float(sps.t.ppf(0.975, df))
    assert stats.t_ppf(0.975, df) == pytest.approx(want, rel=1e-13)
    assert f"{stats.t_ppf(0.975, df):.6f}" == f"{want:.6f}"


@pytest.mark.parametrize(
    ("k", "n"), [(0, 1), (1, 1), (3, 6), (1, 6), (8, 25), (0, 25), (25, 25), (7, 87)]
)
def test_wilson_against_scipy(k: int, n: int) -> None:
    ci = sps.binomtest(k, n).proportion_ci(method="wilson")
    low, high = stats.wilson(k, n)
    assert low == pytest.approx(ci.low, abs=1e-15) and high == pytest.approx(ci.high, abs=1e-15)


def test_sign_flip_against_enumeration() -> None:
    d = [Fraction(1), Fraction(1, 2), Fraction(-1, 2), Fraction(0), Fraction(1, 3)]
    obs = abs(sum(d))
    count = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs - stats.EPS
        for signs in itertools.product([-1, 1], repeat=len(d))
    )
    res = stats.sign_flip(d, 1, 10)
    assert (res.method, res.count, res.total) == ("exact", count, 32)
    # the observed sum and its mirror are always counted: the smallest p is 2 of 2^5
    assert res.p == Fraction(count, 32) and res.p_min == Fraction(2, 32)


def test_within_task_against_scipy_permutation_test() -> None:
    # one task, equal arm sizes: |statistic| agrees with scipy's two-sided test
    a = [1.0, 0.5, 1.0, 0.0]
    b = [0.0, 0.0, 0.5, 0.0]
    res = stats.within_task([[Fraction(x) for x in a]], [[Fraction(x) for x in b]], 1, 10)
    ref = sps.permutation_test(
        (a, b),
        lambda x, y: sum(x) / len(x) - sum(y) / len(y),
        permutation_type="independent",
        alternative="two-sided",
        n_resamples=math.inf,
    )
    assert res.method == "exact" and res.total == 70
    assert res.p_min is None  # the within-task test states no smallest p
    assert float(res.p) == pytest.approx(ref.pvalue, abs=1e-12)


def test_monte_carlo_fallback_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "LIMIT_KEYS", 2)
    d = [Fraction(1), Fraction(1, 2), Fraction(-1, 2)]
    sf = stats.sign_flip(d, 3, 200)
    assert sf.method == "monte_carlo" and sf.total == 200
    assert sf.p == Fraction(1 + sf.count, 201) and sf.p_min == Fraction(1, 201)
    wt = stats.within_task(
        [[Fraction(1), Fraction(1)]] * 3, [[Fraction(0), Fraction(0)]] * 3, 3, 50
    )
    assert wt.method == "monte_carlo" and wt.total == 50
    assert stats.sign_flip(d, 3, 200) == sf  # seeded: the same draws every time


def _job(folder: Path, tid: str, task: str, reward: float, tm: str = "2.0") -> None:
    folder.mkdir(parents=True)
    doc = {
        "id": tid,
        "task_name": task,
        "exception_info": None,
        "verifier": {},
        "verifier_result": {"rewards": {"reward": reward}},
        "config": {"timeout_multiplier": float(tm)},
    }
    (folder / "result.json").write_text(json.dumps(doc), encoding="utf-8")


def _hand_runs(root: Path, b_q_multiplier: str = "2.0") -> tuple[Path, Path]:
    """Section 15.3: tasks p, q, r, two scored trials per task and run."""
    a = {"p": [1, 1], "q": [1, 0], "r": [0, 0]}
    b = {"p": [0, 0], "q": [0, 0], "r": [1, 0]}
    for run, data in (("A", a), ("B", b)):
        for task, rewards in data.items():
            for i, rw in enumerate(rewards):
                tm = b_q_multiplier if (run == "B" and task == "q") else "2.0"
                _job(root / "jobs" / run / f"{task}__{i}", f"{run}{task}{i}", task, float(rw), tm)
    return root / "jobs" / "A", root / "jobs" / "B"


FLAGS = ["--denominator", "attempted", "--k", "1,2,3", "--seed", "1", "--draws", "100"]


def test_hand_example(tmp_path: Path) -> None:
    a, b = _hand_runs(tmp_path)
    out = tmp_path / "out"
    res = run_audit("compare-runs", a, b, *FLAGS, "--out", out)
    assert res.code == 0, res.stderr
    doc = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    assert doc["mean_difference"] == "0.333333"
    assert doc["sd_difference"] == "0.763763"
    assert doc["t_quantile"] == "4.302653" and doc["t_df"] == 2
    assert (doc["t_low"], doc["t_high"]) == ("-1.563958", "2.230625")
    assert doc["sign_flip"] == {
        "method": "exact",
        "count": 6,
        "total": 8,
        "p": "0.750000",
        "p_min": "0.250000",
    }
    assert doc["within_task"] == {"method": "exact", "count": 126, "total": 216, "p": "0.583333"}
    assert (doc["a"]["wilson_low"], doc["a"]["wilson_high"]) == ("0.187616", "0.812384")
    assert (doc["b"]["wilson_low"], doc["b"]["wilson_high"]) == ("0.030053", "0.563503")
    k1, k2, k3 = doc["pass_k"]
    assert (k1["a_pass_at_k"], k1["a_pass_pow_k"], k1["b_pass_at_k"], k1["b_pass_pow_k"]) == (
        "0.500000",
        "0.500000",
        "0.166667",
        "0.166667",
    )
    assert (k2["a_pass_at_k"], k2["a_pass_pow_k"], k2["b_pass_at_k"], k2["b_pass_pow_k"]) == (
        "0.666667",
        "0.333333",
        "0.333333",
        "0.000000",
    )
    assert k3["eligible_tasks"] == 0 and k3["left_out"] == 3 and k3["a_pass_at_k"] is None
    pairs = (out / "pairs.csv").read_text(encoding="utf-8").splitlines()
    assert pairs == [
        "task,a_values,a_mean,a_passes,b_values,b_mean,b_passes,difference",
        "p,2,1.000000,2,2,0.000000,0,1.000000",
        "q,2,0.500000,1,2,0.000000,0,0.500000",
        "r,2,0.000000,0,2,0.500000,1,-0.500000",
    ]
    assert (
        "(exact): 6 of 8 sign patterns at least as far from 0 as observed; p 0.750000" in res.stdout
    )


def test_refusal_and_under_study(tmp_path: Path) -> None:
    a, b = _hand_runs(tmp_path, b_q_multiplier="4.0")
    out = tmp_path / "out"
    res = run_audit("compare-runs", a, b, *FLAGS, "--out", out)
    assert res.code == 2 and not out.exists()
    assert res.stderr.strip() == (
        "error[settings_differ]: A vs B: timeout_multiplier (1 tasks); "
        "name them with --under-study to compare anyway"
    )
    res = run_audit(
        "compare-runs", a, b, *FLAGS, "--under-study", "timeout_multiplier", "--out", out
    )
    assert res.code == 0, res.stderr
    doc = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    assert doc["settings"]["differing_under_study"] == ["timeout_multiplier"]
    res = run_audit("compare-runs", a, b, *FLAGS, "--under-study", "nonsense")
    assert res.code == 2 and res.stderr.startswith("error[bad_args]")


def test_real_sample(tmp_path: Path) -> None:
    if not SAMPLE.is_dir():
        pytest.skip("sample not present at ../shared/bundles/benchflow-trials-sample/jobs")
    rel = "../shared/bundles/benchflow-trials-sample/jobs"
    flags = ["--denominator", "attempted", "--k", "1,5", "--seed", "20260801", "--draws", "10000"]
    res = run_audit("compare-runs", f"{rel}/skills", f"{rel}/no_skills", *flags)
    assert res.code == 2
    assert res.stderr.strip() == (
        "error[settings_differ]: skills vs no_skills: timeout_multiplier (2 tasks), "
        "force_build (2 tasks), task_source (5 tasks), task_checksum (5 tasks); "
        "name them with --under-study to compare anyway"
    )
    under = ["--under-study", "task_source,task_checksum,timeout_multiplier,force_build"]
    res = run_audit(
        "compare-runs", f"{rel}/skills", f"{rel}/no_skills", *flags, *under, "--out", tmp_path
    )
    assert res.code == 0, res.stderr
    doc = json.loads((tmp_path / "compare.json").read_text(encoding="utf-8"))
    # every figure pinned below, worked from the result.json files apart from the adapter
    # and compare-runs (enumeration, scipy's t and Wilson): tests/reference/benchflow_sample.py
    from tests.reference import benchflow_sample as ref

    want = ref.compare(ref.trials(SAMPLE / "skills"), ref.trials(SAMPLE / "no_skills"), (1, 5))
    assert want["paired_tasks"] == 5 and want["only_b"] == ["spring-boot-jakarta-migration"]
    for key in ("mean_difference", "sd_difference", "t_quantile", "t_low", "t_high"):
        assert doc[key] == want[key], key
    assert (doc["sign_flip"]["count"], doc["sign_flip"]["total"]) == want["sign_flip"] == (32, 32)
    assert (doc["within_task"]["count"], doc["within_task"]["total"]) == want["within_task"]
    assert (doc["a"]["wilson_low"], doc["a"]["wilson_high"]) == want["wilson_a"]
    for got, exp in zip(doc["pass_k"], want["pass_k"], strict=True):
        assert {k: got[k] for k in exp} == exp
    assert doc["paired_tasks"] == 5 and doc["only_b"] == ["spring-boot-jakarta-migration"]
    assert (doc["mean_difference"], doc["sd_difference"]) == ("0.007200", "0.142335")
    assert (doc["t_quantile"], doc["t_low"], doc["t_high"]) == ("2.776445", "-0.169532", "0.183932")
    assert doc["sign_flip"] == {
        "method": "exact",
        "count": 32,
        "total": 32,
        "p": "1.000000",
        "p_min": "0.062500",
    }
    wt = doc["within_task"]
    assert (wt["count"], wt["total"], wt["p"]) == (996763356288, 1016255020032, "0.980820")
    assert (doc["a"]["wilson_low"], doc["a"]["wilson_high"]) == ("0.172052", "0.515897")
    k1, k5 = doc["pass_k"]
    assert (k1["a_pass_at_k"], k1["b_pass_at_k"]) == ("0.320000", "0.320000")
    assert (k5["a_pass_at_k"], k5["b_pass_at_k"]) == ("0.600000", "0.600000")
    assert (k5["a_pass_pow_k"], k5["b_pass_pow_k"]) == ("0.200000", "0.000000")
    # the two counts that read as one before: no_skills passes 8 of its 30 trials (its sixth
    # task, spring-boot-jakarta-migration, has no skills run), and 8 of the 25 on the 5 tasks
    # both runs attempted (sample: 5 tries per task)
    text = (tmp_path / "compare.txt").read_text(encoding="utf-8").splitlines()
    rows = [re.split(r"\s{2,}", ln.strip()) for ln in text]
    assert ["outcome class", "A (skills)", "B (no_skills)"] in rows
    assert ["passed", "8 of 25", "8 of 30"] in rows
    assert any(ln.startswith("  B (no_skills): 8 of 25 pass (descriptive);") for ln in text)
    assert "attempted trials counted on the 5 paired tasks: A 25, B 25" in text


def test_hand_example_text_says_what_each_count_counts(tmp_path: Path) -> None:
    """compare.txt of section 15.3's example, line by line worked by hand: every count says
    what it counts and out of what. A: p [1, 1], q [1, 0], r [0, 0]; B: p [0, 0], q [0, 0],
    r [1, 0]; every trial scored."""
    a, b = _hand_runs(tmp_path)
    res = run_audit("compare-runs", a, b, *FLAGS)
    assert res.code == 0, res.stderr
    lines = [ln.rstrip() for ln in res.stdout.splitlines()]
    want = [
        "paired tasks (a value in both A and B): 3; only in A: -; only in B: -; "
        "no value in either: -; left out (broken verifier, both sides): -",
        # 2 trials on each of p, q, r
        "attempted trials counted on the 3 paired tasks: A 6, B 6",
        # over every trial of the run: A passes p's two and q's first; B passes r's first
        "  outcome class          A (A)   B (B)",
        "  passed                3 of 6  1 of 6",
        "  failed                3 of 6  5 of 6",
        "  infrastructure error  0 of 6  0 of 6",
        # per task: A mean, B mean, A - B
        "  p     1.000000  0.000000   1.000000",
        "  r     0.000000  0.500000  -0.500000",
        # d = (1, 1/2, -1/2): |sum| = 1; of the 8 sign patterns, sums 2, 1, 1, 0 and their
        # negatives: six reach |s| >= 1; p = 6/8, smallest 2/8
        "sign-flip test over the 3 paired tasks (exact): 6 of 8 sign patterns at least as far "
        "from 0 as observed; p 0.750000 (smallest possible p 0.250000)",
        "within-task permutation test on the 3 paired tasks (exact): 126 of 216 relabellings "
        "at least as far from 0 as observed; p 0.583333",
        "trials that pass (reward 1) among the attempted trials counted on the 3 paired tasks:",
        "  A (A): 3 of 6 pass (descriptive); Wilson 95% [0.187616, 0.812384], "
        "exact (Clopper-Pearson) 95% [0.118117, 0.881883]",
        # pbar = 1/3: (1.959964 * 2/3 + 0.841621 * sqrt(1/4 + 5/36)) / (1/3) = 5.4945,
        # squared 30.19, up: 31
        "power: to tell a pass rate of 0.500000 from 0.166667 (two-sided two-proportion test, "
        "alpha 0.05, power 0.8) takes 31 trials per arm; this comparison counts A 6 and B 6",
        # 2 / 2^n <= 0.05 first at n = 6 (2/64)
        "the sign-flip test over tasks can reach p <= 0.05 only with at least 6 paired tasks "
        "(smallest p = 2/2^n); this comparison has 3",
        # pass@2: A p 1, q 1, r 0 -> 2/3; B r 1 -> 1/3. pass^2: A p only -> 1/3; B none
        "k = 2, over 3 of 3 paired tasks: pass@k A 0.666667, B 0.333333 (A - B 0.333333); "
        "pass^k A 0.333333, B 0.000000 (A - B 0.333333)",
        "k = 3: q left out of pass@k and pass^k: it has 2 value(s) in A and 2 in B, "
        "and both must be >= 3",
        "k = 3: no paired task has 3 values in both A and B (0 of 3 paired tasks)",
        "  reward original, broken as_zero: 0.333333 over 3 paired tasks (this comparison)",
    ]
    missing = [w for w in want if w not in lines]
    assert not missing, missing
    assert not any("/" in ln.split(":")[0] for ln in lines if " of " in ln)  # no bare k/n


def test_monte_carlo_line_names_its_draws() -> None:
    from audit.trials.compare_runs import _test_line

    # no draw reached the observed: p = (1 + 0) / (1 + 200) = 0.004975, the floor, shown as
    # "< 0.005" (rounded up to one digit); the count is of random draws
    t = {"method": "monte_carlo", "count": 0, "total": 200, "p": "0.004975", "p_min": "0.004975"}
    assert _test_line("sign-flip test", t, 200, "sign patterns") == (
        "sign-flip test (Monte Carlo, 200 draws): 0 of 200 random sign patterns at least as far "
        "from 0 as observed; p < 0.005 (smallest possible p 0.004975)"
    )
