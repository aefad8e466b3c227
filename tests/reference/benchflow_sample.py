"""The BenchFlow trial sample read from its result.json files, apart from the adapter,
the contestants and compare-runs: the figures docs/trials-contract.md section 14
states and tests pin (tests/test_trials_pipeline.py, tests/test_compare_runs.py).

A trial is one `result.json` (run = the first folder under jobs/): its reward is
`verifier_result.rewards.reward`; without one it is errored when an exception was
recorded and the verifier never ran, else unscored (2.2). Values under `attempted`:
the reward, 0 for the other two. Numbers are exact rationals; a double only where
the contract rounds; the t quantile and Wilson's interval come from scipy.

    python -m tests.reference.benchflow_sample ../shared/bundles/benchflow-trials-sample/jobs
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path


def trials(run: Path) -> list[dict]:
    out = []
    for f in sorted(run.glob("*/result.json")):  # one folder per trial; the run's own beside
        r = json.loads(f.read_text(encoding="utf-8"))
        reward = ((r.get("verifier_result") or {}).get("rewards") or {}).get("reward")
        if reward is not None:
            status = "scored"
        elif isinstance(r.get("exception_info"), dict) and not isinstance(r.get("verifier"), dict):
            status = "errored"
        else:
            status = "unscored"
        out.append({"task": r["task_name"], "id": r["id"], "reward": reward, "status": status})
    return out


def attempted(ts: list[dict]) -> dict[str, list[Fraction]]:
    """Per task, the values under `attempted` (exact: the reward as the decimal it prints)."""
    by: dict[str, list[Fraction]] = {}
    for t in sorted(ts, key=lambda t: t["id"]):
        v = Fraction(Decimal(repr(float(t["reward"])))) if t["status"] == "scored" else Fraction(0)
        by.setdefault(t["task"], []).append(v)
    return by


def entry(ts: list[dict]) -> dict:
    """7.1 and 7.2 over the task means of `attempted`, scale 100."""
    by = attempted(ts)
    # per-task means: (exact sum rounded once) / n rounded once; every reward here is a
    # double, so the exact sum of the doubles is what the contract sums
    means = [
        float(Fraction(float(sum(Fraction(float(v)) for v in vs))) / len(vs))
        for _, vs in sorted(by.items())
    ]
    n = len(means)
    exact = [Fraction(m) for m in means]
    macro = float(Fraction(float(Fraction(float(sum(exact))) / n)) * 100)
    mu = sum(exact) / n
    sd = math.sqrt(float(sum((x - mu) ** 2 for x in exact) / (n - 1)))
    # ((1.96 (x) sd) (/) sqrt(n)) (x) 100, each step rounded once to a double
    step = float(Fraction(1.96) * Fraction(sd))
    step = float(Fraction(step) / Fraction(math.sqrt(n)))
    ci = float(Fraction(step) * 100)
    return {
        "tasks": n,
        "selected": len(ts),
        "scored": sum(t["status"] == "scored" for t in ts),
        "errored": sum(t["status"] == "errored" for t in ts),
        "unscored": sum(t["status"] == "unscored" for t in ts),
        "reward_macro": f"{macro:.6f}",
        "reward_ci95": f"{ci:.6f}",
    }


def six(x: Fraction) -> str:
    q = round(x * 10**6)
    return f"{'-' if q < 0 else ''}{abs(q) // 10**6}.{abs(q) % 10**6:06d}"


def compare(a: list[dict], b: list[dict], ks: tuple[int, ...]) -> dict:
    """compare-runs A B --denominator attempted (11.1, 11.3), by enumeration."""
    from scipy import stats

    va, vb = attempted(a), attempted(b)
    paired = sorted(va.keys() & vb.keys())
    d = [sum(va[t]) / len(va[t]) - sum(vb[t]) / len(vb[t]) for t in paired]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(float(sum((x - mean) ** 2 for x in d) / (n - 1)))
    se = sd / math.sqrt(n)
    q = float(stats.t.ppf(0.975, n - 1))
    eps = Fraction(1, 10**12)
    observed = abs(sum(d))
    flips = sum(
        abs(sum(s * x for s, x in zip(signs, d))) >= observed - eps
        for signs in itertools.product((-1, 1), repeat=n)
    )
    # within-task relabellings: each task's own distribution enumerated, then the
    # tasks' distributions combined (a product of 10^12 relabellings is too many to list)
    dist: dict[Fraction, int] = {Fraction(0): 1}
    for t in paired:
        pool, k = va[t] + vb[t], len(va[t])
        mine: dict[Fraction, int] = {}
        for chosen in itertools.combinations(range(len(pool)), k):
            inside = sum(pool[i] for i in chosen)
            stat = inside / k - (sum(pool) - inside) / (len(pool) - k)
            mine[stat] = mine.get(stat, 0) + 1
        dist = _convolve(dist, mine)
    total = sum(dist.values())
    within = sum(c for x, c in dist.items() if abs(x) >= observed - eps)
    pooled = [v for t in paired for v in va[t]]
    wilson = stats.binomtest(sum(v == 1 for v in pooled), len(pooled)).proportion_ci(
        method="wilson"
    )
    pass_k = []
    for k in ks:
        row = {}
        for side, vals in (("a", va), ("b", vb)):
            eligible = [t for t in paired if len(va[t]) >= k and len(vb[t]) >= k]
            at = [1 - Fraction(math.comb(len(vals[t]) - sum(v == 1 for v in vals[t]), k),
                                math.comb(len(vals[t]), k)) for t in eligible]  # fmt: skip
            hat = [Fraction(math.comb(sum(v == 1 for v in vals[t]), k), math.comb(len(vals[t]), k))
                   for t in eligible]  # fmt: skip
            row[f"{side}_pass_at_k"] = six(sum(at) / len(at))
            row[f"{side}_pass_pow_k"] = six(sum(hat) / len(hat))
        pass_k.append(row)
    return {
        "paired_tasks": n,
        "only_b": sorted(vb.keys() - va.keys()),
        "mean_difference": six(mean),
        "sd_difference": f"{sd:.6f}",
        "t_quantile": f"{q:.6f}",
        "t_low": f"{float(mean) - q * se:.6f}",
        "t_high": f"{float(mean) + q * se:.6f}",
        "sign_flip": (flips, 2**n),
        "within_task": (within, total),
        "wilson_a": (f"{wilson.low:.6f}", f"{wilson.high:.6f}"),
        "pass_k": pass_k,
    }


def _convolve(left: dict, right: dict) -> dict:
    out: dict = {}
    for x, c in left.items():
        for y, e in right.items():
            out[x + y] = out.get(x + y, 0) + c * e
    return out


def main(argv: list[str]) -> int:
    jobs = Path(argv[0])
    skills, no_skills = trials(jobs / "skills"), trials(jobs / "no_skills")
    print("no_skills", entry(no_skills))
    print("skills", entry(skills))
    print("compare skills no_skills", compare(skills, no_skills, (1, 5)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
