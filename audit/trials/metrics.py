"""``python -m audit metrics RUN...``: the single-run view (docs/trials-contract.md
section 11.7): score, mean reward, success rule, solve rate, pass@k and pass^k with
their k and tries per task, the trials by outcome class, the interval over tasks.
Referee side; classes and values come from audit/trials/outcomes.py, statistics from
audit/trials/stats.py, run loading from audit/trials/compare_runs.py.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from audit.adapters.base import canonical_json
from audit.errors import AuditError
from audit.files import write_atomic
from audit.trials import outcomes, stats
from audit.trials.compare_runs import _values, load_arm

F6 = stats.fmt_fraction
SUCCESS_RULE = "a trial succeeds iff its counted reward equals 1"


def metrics(
    spec: str,
    trials: str | None,
    denominator: str,
    reward: str,
    broken: str,
    ks: list[int] | None,
) -> dict[str, Any]:
    outcomes.check_policies(reward, broken, denominator)
    label, all_rows = load_arm(spec, trials)
    rows = [r for r in all_rows if not outcomes.is_control(r)]
    drop: frozenset[str] = frozenset()
    if broken == "exclude_task_both_sides":
        drop = frozenset(
            r["task"] for r in rows if outcomes.classify(r, reward) == "broken_verifier"
        )
    per_task = _values(rows, denominator, reward, broken, drop)
    tasks = sorted(t for t, v in per_task.items() if v)
    left_out = sorted(t for t, v in per_task.items() if not v)
    vals = [per_task[t] for t in tasks]
    doc: dict[str, Any] = {
        "run": label,
        "denominator": denominator,
        "reward": reward,
        "broken": broken,
        "success_rule": SUCCESS_RULE,
        "trials": len(all_rows),
        "classes": outcomes.class_counts([outcomes.classify(r, reward) for r in all_rows]),
        "tasks": len(tasks),
        "tasks_left_out": left_out,
        "excluded_tasks": sorted(drop),
        "tries_per_task": {t: len(v) for t, v in zip(tasks, vals, strict=True)},
    }
    if not tasks:
        raise AuditError("no_values", label, "no task has a value under this policy")
    means = [sum(v, Fraction(0)) / len(v) for v in vals]
    n = sum(len(v) for v in vals)
    k = sum(1 for v in vals for x in v if x == 1)
    ti = stats.t_interval(means)
    w_low, w_high = stats.wilson(k, n)
    e_low, e_high = stats.clopper_pearson(k, n)
    doc.update(
        {
            "score": F6(100 * ti.mean),
            "score_rule": "100 x the mean over tasks of each task's mean reward",
            "mean_reward": F6(sum((x for v in vals for x in v), Fraction(0)) / n),
            "values": n,
            "passes": k,
            "solve_rate": F6(Fraction(k, n)),
            "solve_rate_wilson": [stats.fmt_float(w_low), stats.fmt_float(w_high)],
            "solve_rate_exact": [stats.fmt_float(e_low), stats.fmt_float(e_high)],
            "tasks_solved": sum(1 for v in vals if any(x == 1 for x in v)),
            "task_interval": None
            if ti.df is None
            else {
                "t_low": stats.fmt_float(100 * ti.low),
                "t_high": stats.fmt_float(100 * ti.high),
                "df": ti.df,
            },
        }
    )
    kmax = min(len(v) for v in vals)
    pass_k = []
    for kk in sorted({1, kmax} if ks is None else set(ks)):
        elig = [i for i, v in enumerate(vals) if len(v) >= kk]
        entry: dict[str, Any] = {
            "k": kk,
            "eligible_tasks": len(elig),
            "left_out_tasks": [
                {"task": tasks[i], "values": len(vals[i])}
                for i in range(len(vals))
                if i not in elig
            ],
            "pass_at_k": None,
            "pass_pow_k": None,
        }
        if elig:
            for name, fn in (("pass_at_k", stats.pass_at_k), ("pass_pow_k", stats.pass_pow_k)):
                tot = sum(
                    (fn(len(vals[i]), sum(x == 1 for x in vals[i]), kk) for i in elig),
                    Fraction(0),
                )
                entry[name] = F6(tot / len(elig))
        pass_k.append(entry)
    doc["pass_k"] = pass_k
    return doc


def render(doc: dict[str, Any]) -> str:
    tries = sorted(set(doc["tries_per_task"].values()))
    lines = [
        f"metrics: {doc['run']} (denominator {doc['denominator']}, reward {doc['reward']}, "
        f"broken verifiers {doc['broken']})",
        f"score {doc['score']} ({doc['score_rule']})",
        f"mean reward {doc['mean_reward']} over {doc['values']} counted trials",
        f"success rule: {doc['success_rule']}",
        f"solve rate {doc['solve_rate']} ({doc['passes']}/{doc['values']}); "
        f"Wilson 95% [{', '.join(doc['solve_rate_wilson'])}], "
        f"exact 95% [{', '.join(doc['solve_rate_exact'])}]; "
        f"tasks solved at least once {doc['tasks_solved']}/{doc['tasks']}",
    ]
    ti = doc["task_interval"]
    lines.append(
        "95% t interval of the score over tasks: "
        + ("- (one task)" if ti is None else f"[{ti['t_low']}, {ti['t_high']}] (df {ti['df']})")
    )
    lines.append(f"tries per task: {', '.join(map(str, tries))} ({doc['tasks']} tasks)")
    for e in doc["pass_k"]:
        for t in e["left_out_tasks"]:
            lines.append(f"k={e['k']}: {t['task']} left out: n = {t['values']} < k")
        lines.append(
            f"k={e['k']} ({e['eligible_tasks']} tasks): pass@k {e['pass_at_k'] or '-'}, "
            f"pass^k {e['pass_pow_k'] or '-'}"
        )
    lines.append(f"trials by class (of {doc['trials']}):")
    lines += [f"  {c:<22}{doc['classes'][c]:>6}/{doc['trials']}" for c in outcomes.CLASSES]
    if doc["tasks_left_out"]:
        lines.append(f"tasks with no value: {', '.join(doc['tasks_left_out'])}")
    if doc["excluded_tasks"]:
        lines.append(f"tasks excluded for a broken verifier: {', '.join(doc['excluded_tasks'])}")
    return "\n".join(lines) + "\n"


def run(args: Any) -> int:
    try:
        ks = [int(x) for item in args.k for x in item.split(",") if x] if args.k else None
    except ValueError:
        raise AuditError("bad_args", "metrics", f"--k must be integers, got {args.k}") from None
    if ks is not None and (not ks or any(k < 1 for k in ks)):
        raise AuditError("bad_args", "metrics", f"--k must be integers >= 1, got {ks}")
    docs = [
        metrics(spec, args.trials, args.denominator, args.reward, args.broken, ks)
        for spec in args.runs
    ]
    text = "\n".join(render(d) for d in docs)
    if args.out:
        out = Path(args.out)
        write_atomic(out / "metrics.json", canonical_json({"runs": docs}))
        write_atomic(out / "metrics.txt", text)
    print(canonical_json({"runs": docs}) if args.json else text, end="")
    return 0
