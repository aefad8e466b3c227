"""``python -m audit compare-runs A B``: a paired comparison of two runs over tasks
(docs/trials-contract.md section 11). Referee side; statistics in audit/trials/stats.py.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters.base import SETTING_NAMES, Options, canonical_json
from audit.adapters.formats import adapt
from audit.errors import AuditError
from audit.files import write_atomic
from audit.text import labels, numbers
from audit.trials import outcomes, stats

F6 = stats.fmt_fraction
SIX = 6  # compare.json's places: its text shows each number at them


def _opt(x: float | None) -> str | None:
    return None if x is None else stats.fmt_float(x)


def load_run(spec: str, trials: str | None) -> tuple[str, list[dict[str, Any]]]:
    """(label, copy-0 rows) of one run: a run name in ``trials``, or a run folder."""
    if trials is not None:
        if not Path(trials).is_file():
            raise AuditError("missing_file", trials, "no such trial table")
        try:
            table = pl.read_parquet(trials)
        except Exception as e:  # noqa: BLE001 - any reader failure is unusable input
            raise AuditError("unreadable", trials, f"not parquet ({type(e).__name__})") from None
        return spec, run_rows(table, spec, trials)
    folder = Path(spec)
    if not folder.is_dir():
        raise AuditError("missing_file", spec, "run folder does not exist or is not a folder")
    name = folder.resolve().name if folder.name in ("", ".", "..") else folder.name
    table, _ = adapt(str(folder.parent), options=Options(only=folder.name))
    return name, [r for r in table.to_dicts() if r["copy"] == 0]


def run_rows(table: pl.DataFrame, spec: str, shown: str) -> list[dict[str, Any]]:
    """The copy-0 rows of the run ``spec`` in a trial table; ``unknown_run`` naming
    ``shown`` when the table holds no row of it (the job's table, or preflight's in memory)."""
    rows = table.filter(pl.col("run") == spec).to_dicts()
    if not rows:
        raise AuditError("unknown_run", shown, f"no run named {spec!r} in the trial table")
    return [r for r in rows if r["copy"] == 0]


def load_arm(specs: str | list[str], trials: str | None) -> tuple[str, list[dict[str, Any]]]:
    """One arm: several runs (names in ``trials`` or run folders) pooled; label joined by +."""
    specs = [specs] if isinstance(specs, str) else list(specs)
    labels, rows = [], []
    for spec in specs:
        label, run_rows = load_run(spec, trials)
        labels.append(label)
        rows += run_rows
    return "+".join(labels), rows


def _values(
    rows: list[dict[str, Any]],
    denominator: str,
    reward: str = "original",
    broken: str = "as_zero",
    drop_tasks: frozenset[str] = frozenset(),
) -> dict[str, list[Fraction]]:
    """Per task, the values in (trial_id, run) order (11.1, 11.5); tasks with rows but no
    values: []. Control runs are never here (the caller removes them)."""
    out: dict[str, list[Fraction]] = {}
    for r in sorted(rows, key=lambda r: (r["task"], r["trial_id"], r["run"])):
        if r["task"] in drop_tasks:
            continue
        vals = out.setdefault(r["task"], [])
        v = outcomes.value(r, outcomes.classify(r, reward), reward, denominator, broken)
        if v is not None:
            vals.append(v)
    return out


def _settings(
    label_a: str,
    label_b: str,
    a: list[dict[str, Any]],
    b: list[dict[str, Any]],
    tasks: list[str],
    under_study: list[str],
) -> dict[str, Any]:
    differ: dict[str, int] = {}
    not_recorded = []
    for s in SETTING_NAMES:
        n = 0
        all_null = True
        for t in tasks:
            va = {r[s] for r in a if r["task"] == t}
            vb = {r[s] for r in b if r["task"] == t}
            all_null = all_null and va <= {None} and vb <= {None}
            n += va != vb
        if all_null:
            not_recorded.append(s)
        if n:
            differ[s] = n
    refused = [s for s in differ if s not in under_study]
    if refused:
        listing = ", ".join(f"{s} ({differ[s]} tasks)" for s in refused)
        raise AuditError(
            "settings_differ",
            f"{label_a} vs {label_b}",
            f"{listing}; name them with --under-study to compare anyway",
        )
    return {
        "under_study": list(under_study),
        "differing_under_study": [s for s in differ if s in under_study],
        "not_recorded_in_either": not_recorded,
    }


def _broken_tasks(rows: list[dict[str, Any]], reward: str) -> set[str]:
    return {r["task"] for r in rows if outcomes.classify(r, reward) == "broken_verifier"}


def _pairing(
    rows_a: list[dict[str, Any]],
    rows_b: list[dict[str, Any]],
    denominator: str,
    reward: str,
    broken: str,
) -> dict[str, Any]:
    drop: frozenset[str] = frozenset()
    if broken == "exclude_task_both_sides":
        drop = frozenset(_broken_tasks(rows_a, reward) | _broken_tasks(rows_b, reward))
    va = _values(rows_a, denominator, reward, broken, drop)
    vb = _values(rows_b, denominator, reward, broken, drop)
    paired = sorted(t for t in va if va[t] and vb.get(t))
    return {
        "paired": paired,
        "only_a": sorted(t for t in va if va[t] and not vb.get(t)),
        "only_b": sorted(t for t in vb if vb[t] and not va.get(t)),
        "no_values": sorted(t for t in set(va) | set(vb) if not va.get(t) and not vb.get(t)),
        "excluded_tasks": sorted(drop),
        "a": [va[t] for t in paired],
        "b": [vb[t] for t in paired],
    }


def _mean(x: list[Fraction]) -> Fraction:
    return sum(x, Fraction(0)) / len(x)


def _differences(
    a: list[list[Fraction]], b: list[list[Fraction]], difference: str, unit: str
) -> list[Fraction]:
    scale = 100 if unit == "points" else 1
    if difference == "B-A":
        return [scale * (_mean(y) - _mean(x)) for x, y in zip(a, b, strict=True)]
    return [scale * (_mean(x) - _mean(y)) for x, y in zip(a, b, strict=True)]


def _controls(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    runs: dict[tuple[str, str], int] = {}
    for r in rows:
        if outcomes.is_control(r):
            runs[(r["run"], r["harness"])] = runs.get((r["run"], r["harness"]), 0) + 1
    return [{"run": k[0], "harness": k[1], "trials": n} for k, n in sorted(runs.items())]


def _broken_listing(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(rows, key=lambda r: (r["task"], r["trial_id"], r["run"])):
        if r.get("verifier_broken"):
            out.setdefault(r["task"], []).append(
                {
                    "trial_id": r["trial_id"],
                    "run": r["run"],
                    "reason": r["verifier_broken_reason"],
                    "regraded": None
                    if r.get("reward_regraded") is None
                    else stats.fmt_float(r["reward_regraded"]),
                }
            )
    return out


def default_ks(a: list[list[Fraction]], b: list[list[Fraction]]) -> list[int]:
    """1 and the largest k every paired task supports in both arms."""
    kmax = min(min(len(x), len(y)) for x, y in zip(a, b, strict=True))
    return sorted({1, kmax})


def _power(pa: Fraction, pb: Fraction, alpha: float, power: float, n_a: int, n_b: int) -> dict:
    need = stats.trials_per_arm(float(pa), float(pb), alpha, power)
    return {
        "alpha": stats.fmt_float(alpha),
        "power": stats.fmt_float(power),
        "rate_a": F6(pa),
        "rate_b": F6(pb),
        "trials_per_arm": need,
        "trials_a": n_a,
        "trials_b": n_b,
        "enough": None if need is None else (n_a >= need and n_b >= need),
        "min_tasks_sign_flip": stats.min_tasks_sign_flip(alpha),
    }


def _test_json(t: stats.PermutationTest) -> dict[str, Any]:
    """A permutation test as compare.json carries it: p (and p_min where stated) to six places."""
    out: dict[str, Any] = {"method": t.method, "count": t.count, "total": t.total, "p": F6(t.p)}
    if t.p_min is not None:
        out["p_min"] = F6(t.p_min)
    return out


def paired_runs(
    arm_a: tuple[str, list[dict[str, Any]]],
    arm_b: tuple[str, list[dict[str, Any]]],
    denominator: str,
    reward: str,
    broken: str,
    under_study: list[str],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """Each arm's rows without its control runs, the pairing (11.1) and the settings
    check (11.2): ``no_pairs`` when no task has values in both, ``settings_differ`` when a
    setting not under study differs. ``arm_a``, ``arm_b``: (label, copy-0 rows)."""
    (label_a, all_a), (label_b, all_b) = arm_a, arm_b
    rows_a = [r for r in all_a if not outcomes.is_control(r)]
    rows_b = [r for r in all_b if not outcomes.is_control(r)]
    pr = _pairing(rows_a, rows_b, denominator, reward, broken)
    if not pr["paired"]:
        raise AuditError("no_pairs", f"{label_a} vs {label_b}", "no task has values in both runs")
    settings = _settings(label_a, label_b, rows_a, rows_b, pr["paired"], under_study)
    return rows_a, rows_b, pr, settings


def compare(
    spec_a: str | list[str],
    spec_b: str | list[str],
    denominator: str,
    ks: list[int] | None,
    seed: int,
    draws: int,
    under_study: list[str],
    trials: str | None = None,
    difference: str = "A-B",
    unit: str = "reward",
    reward: str = "original",
    broken: str = "as_zero",
    alpha: float = 0.05,
    power: float = 0.8,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(compare.json document, pairs rows). Raises AuditError on refusal."""
    outcomes.check_policies(reward, broken, denominator)
    if difference not in ("A-B", "B-A"):
        raise AuditError("bad_args", "compare-runs", "--difference must be A-B or B-A")
    if unit not in ("reward", "points"):
        raise AuditError("bad_args", "compare-runs", "--unit must be reward or points")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise AuditError("bad_args", "compare-runs", "--alpha and --power must lie in (0, 1)")
    for s in under_study:
        if s not in SETTING_NAMES:
            raise AuditError("bad_args", "compare-runs", f"{s!r} is not a setting (section 2.3)")
    if ks is not None and (not ks or any(k < 1 for k in ks) or len(set(ks)) != len(ks)):
        raise AuditError("bad_args", "compare-runs", f"--k must be unique integers >= 1, got {ks}")
    if draws < 1:
        raise AuditError("bad_args", "compare-runs", "--draws must be >= 1")
    label_a, all_a = load_arm(spec_a, trials)
    label_b, all_b = load_arm(spec_b, trials)
    controls = {"a": _controls(all_a), "b": _controls(all_b)}
    rows_a, rows_b, pr, settings = paired_runs(
        (label_a, all_a), (label_b, all_b), denominator, reward, broken, under_study
    )
    paired = pr["paired"]
    a, b = pr["a"], pr["b"]
    mean_a = [_mean(x) for x in a]
    mean_b = [_mean(y) for y in b]
    d = _differences(a, b, difference, unit)
    ti = stats.t_interval(d)
    sf = stats.sign_flip(d, seed, draws)
    wt = stats.within_task(a, b, seed, draws)

    def side(label: str, vals: list[list[Fraction]], rows: list[dict[str, Any]]) -> dict:
        n = sum(len(x) for x in vals)
        k = sum(1 for x in vals for v in x if v == 1)
        low, high = stats.wilson(k, n)
        cp_low, cp_high = stats.clopper_pearson(k, n)
        return {
            "run": label,
            "tasks": len(vals),
            "values": n,
            "passes": k,
            "wilson_low": stats.fmt_float(low),
            "wilson_high": stats.fmt_float(high),
            "exact_low": stats.fmt_float(cp_low),
            "exact_high": stats.fmt_float(cp_high),
            "trials": len(rows),
            "classes": outcomes.class_counts([outcomes.classify(r, reward) for r in rows]),
        }

    side_a, side_b = side(label_a, a, all_a), side(label_b, b, all_b)
    ks = default_ks(a, b) if ks is None else ks
    pass_k = []
    for k in sorted(ks):
        elig = [i for i in range(len(paired)) if len(a[i]) >= k and len(b[i]) >= k]
        entry: dict[str, Any] = {
            "k": k,
            "eligible_tasks": len(elig),
            "left_out": len(paired) - len(elig),
            "left_out_tasks": [
                {"task": paired[i], "a_values": len(a[i]), "b_values": len(b[i])}
                for i in range(len(paired))
                if i not in elig
            ],
        }
        for name, fn in (("pass_at_k", stats.pass_at_k), ("pass_pow_k", stats.pass_pow_k)):
            if not elig:
                entry.update({f"a_{name}": None, f"b_{name}": None, f"diff_{name}": None})
                continue
            ra = sum((fn(len(a[i]), sum(v == 1 for v in a[i]), k) for i in elig), Fraction(0))
            rb = sum((fn(len(b[i]), sum(v == 1 for v in b[i]), k) for i in elig), Fraction(0))
            ra, rb = ra / len(elig), rb / len(elig)
            diff = (rb - ra if difference == "B-A" else ra - rb) * (100 if unit == "points" else 1)
            entry.update({f"a_{name}": F6(ra), f"b_{name}": F6(rb), f"diff_{name}": F6(diff)})
        pass_k.append(entry)
    moved = []
    for rp in outcomes.REWARD_POLICIES:
        for bp in outcomes.BROKEN_POLICIES:
            alt = _pairing(rows_a, rows_b, denominator, rp, bp)
            dd = _differences(alt["a"], alt["b"], difference, unit)
            moved.append(
                {
                    "reward": rp,
                    "broken": bp,
                    "paired_tasks": len(alt["paired"]),
                    "mean_difference": F6(sum(dd, Fraction(0)) / len(dd)) if dd else None,
                }
            )
    doc = {
        "a": side_a,
        "b": side_b,
        "denominator": denominator,
        "difference": difference,
        "unit": unit,
        "reward": reward,
        "broken": broken,
        "seed": seed,
        "draws": draws,
        "paired_tasks": len(paired),
        "only_a": pr["only_a"],
        "only_b": pr["only_b"],
        "no_values": pr["no_values"],
        "excluded_tasks": pr["excluded_tasks"],
        "control_runs": controls,
        "broken_verifiers": {"a": _broken_listing(rows_a), "b": _broken_listing(rows_b)},
        "mean_difference": F6(ti.mean),
        "sd_difference": _opt(ti.sd),
        "t_df": ti.df,
        "t_quantile": _opt(ti.q),
        "t_low": _opt(ti.low),
        "t_high": _opt(ti.high),
        "sign_flip": _test_json(sf),
        "within_task": _test_json(wt),
        "pass_k": pass_k,
        "power": _power(
            Fraction(side_a["passes"], side_a["values"]),
            Fraction(side_b["passes"], side_b["values"]),
            alpha,
            power,
            side_a["values"],
            side_b["values"],
        ),
        "policies": moved,
        "settings": settings,
    }
    pairs = [
        {
            "task": t,
            "a_values": len(a[i]),
            "a_mean": F6(mean_a[i]),
            "a_passes": sum(1 for v in a[i] if v == 1),
            "b_values": len(b[i]),
            "b_mean": F6(mean_b[i]),
            "b_passes": sum(1 for v in b[i] if v == 1),
            "difference": F6(d[i]),
        }
        for i, t in enumerate(paired)
    ]
    return doc, pairs


PAIRS_HEADER = "task,a_values,a_mean,a_passes,b_values,b_mean,b_passes,difference"


def pairs_csv(pairs: list[dict[str, Any]]) -> str:
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(PAIRS_HEADER.split(","))
    for p in pairs:
        w.writerow([p[c] for c in PAIRS_HEADER.split(",")])
    return buf.getvalue()


def _render_broken(doc: dict[str, Any]) -> list[str]:
    lines = []
    for arm in ("a", "b"):
        listing = doc["broken_verifiers"][arm]
        n = sum(len(v) for v in listing.values())
        shown = f"{numbers.count(n)} trial(s)" if n else "none"
        lines.append(f"broken verifiers in {arm.upper()} ({doc[arm]['run']}): {shown}")
        for task, items in listing.items():
            shown = ", ".join(
                f"{x['trial_id']} ({x['reason']}"
                + (f", regraded {x['regraded']})" if x["regraded"] is not None else ")")
                for x in items
            )
            lines.append(f"  {task}: {shown}")
    return lines


def _table(header: list[str], rows: list[list[str]], right_from: int = 1) -> list[str]:
    """Columns padded to their widest cell: the first ``right_from`` to the left (words), the
    rest to the right (numbers); two spaces between columns, however long a task's name."""
    widths = [max(len(r[k]) for r in (header, *rows)) for k in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if k < right_from else c.rjust(w)
            for k, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), *[line(r) for r in rows]]


def _render_classes(doc: dict[str, Any]) -> list[str]:
    a, b = doc["a"], doc["b"]
    lines = [
        "every trial of each run by outcome class (paired tasks or not, control runs included):"
    ]
    header = ["outcome class", f"A ({a['run']})", f"B ({b['run']})"]
    rows = [
        [labels.label(c), *(numbers.of(doc[s]["classes"][c], doc[s]["trials"]) for s in "ab")]
        for c in outcomes.CLASSES
    ]
    lines += ["  " + ln for ln in _table(header, rows)]
    for arm in ("a", "b"):
        for cr in doc["control_runs"][arm]:
            lines.append(
                f"control run left out of {arm.upper()}: {cr['run']} "
                f"(harness {cr['harness']}, {numbers.count(cr['trials'])} trials)"
            )
    return lines


def _test_line(name: str, t: dict[str, Any], draws: int, what: str) -> str:
    """A permutation test: how many of its sign patterns, relabellings or draws came out at
    least as far from zero as the observed one, and its p."""
    if t["method"] == "monte_carlo":
        how = f"Monte Carlo, {numbers.count(draws)} draws"
        p = numbers.perm_p(t["p"], draws)
        counted = f"{numbers.of(t['count'], t['total'])} random {what}"
    else:
        how = "exact"
        p = numbers.at_places(t["p"], SIX)
        counted = f"{numbers.of(t['count'], t['total'])} {what}"
    line = f"{name} ({how}): {counted} at least as far from 0 as observed; p {p}"
    if "p_min" in t:
        line += f" (smallest possible p {numbers.at_places(t['p_min'], SIX)})"
    return line


def render(doc: dict[str, Any], pairs: list[dict[str, Any]]) -> str:
    """compare.txt: every count with what it counts and out of what (docs/trials.md)."""
    a, b = doc["a"], doc["b"]
    st = doc["settings"]
    diff = doc["difference"].replace("-", " - ")
    unit = doc["unit"]
    n_paired = numbers.count(doc["paired_tasks"])
    on_paired = f"on the {n_paired} paired tasks"
    counted = "attempted" if doc["denominator"] == "attempted" else "scored"
    lines = [
        f"compare-runs: A = {a['run']}, B = {b['run']}; difference {diff}, in {unit}",
        f"rules: denominator {doc['denominator']}, reward {doc['reward']}, "
        f"broken verifiers {doc['broken']}",
        *_render_broken(doc),
        "",
        f"paired tasks (a value in both A and B): {n_paired}; "
        f"only in A: {', '.join(doc['only_a']) or '-'}; "
        f"only in B: {', '.join(doc['only_b']) or '-'}; "
        f"no value in either: {', '.join(doc['no_values']) or '-'}; "
        f"left out (broken verifier, both sides): {', '.join(doc['excluded_tasks']) or '-'}",
        f"{counted} trials counted {on_paired}: A {numbers.count(a['values'])}, "
        f"B {numbers.count(b['values'])}",
        f"settings under study: {', '.join(st['under_study']) or '-'} "
        f"(differing: {', '.join(st['differing_under_study']) or '-'})",
        f"settings not recorded in either run: {', '.join(st['not_recorded_in_either']) or '-'}",
        "",
        *_render_classes(doc),
        "",
        f"per paired task, the mean value of its {counted} trials:",
    ]
    rows = [
        [
            p["task"],
            numbers.at_places(p["a_mean"], SIX),
            numbers.at_places(p["b_mean"], SIX),
            numbers.at_places(p["difference"], SIX),
        ]
        for p in pairs
    ]
    lines += ["  " + ln for ln in _table(["task", "A mean", "B mean", diff], rows)]
    lines.append("")
    mean = numbers.at_places(doc["mean_difference"], SIX)
    if doc["t_df"] is None:
        lines.append(f"mean difference over 1 paired task {mean} (no t interval)")
    else:
        lines.append(
            f"mean difference over the {n_paired} paired tasks {mean}, "
            f"SD {numbers.at_places(doc['sd_difference'], SIX)}; 95% t interval "
            f"[{numbers.at_places(doc['t_low'], SIX)}, {numbers.at_places(doc['t_high'], SIX)}] "
            f"(df {doc['t_df']}, t quantile {numbers.at_places(doc['t_quantile'], SIX)})"
        )
    lines.append(
        _test_line(
            f"sign-flip test over the {n_paired} paired tasks",
            doc["sign_flip"],
            doc["draws"],
            "sign patterns",
        )
    )
    lines.append(
        _test_line(
            f"within-task permutation test {on_paired}",
            doc["within_task"],
            doc["draws"],
            "relabellings",
        )
    )
    lines.append(f"trials that pass (reward 1) among the {counted} trials counted {on_paired}:")
    for arm, s in (("A", a), ("B", b)):
        lines.append(
            f"  {arm} ({s['run']}): {numbers.of(s['passes'], s['values'])} pass (descriptive); "
            f"Wilson 95% [{numbers.at_places(s['wilson_low'], SIX)}, "
            f"{numbers.at_places(s['wilson_high'], SIX)}], exact (Clopper-Pearson) 95% "
            f"[{numbers.at_places(s['exact_low'], SIX)}, {numbers.at_places(s['exact_high'], SIX)}]"
        )
    pw = doc["power"]
    if pw["trials_per_arm"] is None:
        lines.append(
            f"power: the observed pass rates are equal ({numbers.at_places(pw['rate_a'], SIX)}); "
            "no number of trials tells them apart"
        )
    else:
        lines.append(
            f"power: to tell a pass rate of {numbers.at_places(pw['rate_a'], SIX)} from "
            f"{numbers.at_places(pw['rate_b'], SIX)} (two-sided two-proportion test, alpha "
            f"{numbers.shortest(pw['alpha'])}, power {numbers.shortest(pw['power'])}) takes "
            f"{numbers.count(pw['trials_per_arm'])} trials per arm; this comparison counts "
            f"A {numbers.count(pw['trials_a'])} and B {numbers.count(pw['trials_b'])}"
        )
    lines.append(
        f"the sign-flip test over tasks can reach p <= {numbers.shortest(pw['alpha'])} only with "
        f"at least {numbers.count(pw['min_tasks_sign_flip'])} paired tasks (smallest p = 2/2^n); "
        f"this comparison has {n_paired}"
    )
    for e in doc["pass_k"]:
        for t in e["left_out_tasks"]:
            lines.append(
                f"k = {e['k']}: {t['task']} left out of pass@k and pass^k: it has "
                f"{numbers.count(t['a_values'])} value(s) in A and "
                f"{numbers.count(t['b_values'])} in B, and both must be >= {e['k']}"
            )
        eligible = f"{numbers.of(e['eligible_tasks'], doc['paired_tasks'])} paired tasks"
        if e["a_pass_at_k"] is None:
            lines.append(
                f"k = {e['k']}: no paired task has {e['k']} values in both A and B "
                f"(0 of {n_paired} paired tasks)"
            )
            continue
        six = {k: numbers.at_places(e[k], SIX) for k in e if k.startswith(("a_", "b_", "diff_"))}
        lines.append(
            f"k = {e['k']}, over {eligible}: "
            f"pass@k A {six['a_pass_at_k']}, B {six['b_pass_at_k']} "
            f"({diff} {six['diff_pass_at_k']}); "
            f"pass^k A {six['a_pass_pow_k']}, B {six['b_pass_pow_k']} "
            f"({diff} {six['diff_pass_pow_k']})"
        )
    lines.append("")
    lines.append(f"mean difference ({diff}, {unit}) under each declared policy:")
    for m in doc["policies"]:
        mark = (
            " (this comparison)"
            if (m["reward"], m["broken"]) == (doc["reward"], doc["broken"])
            else ""
        )
        value = numbers.at_places(m["mean_difference"], SIX) if m["mean_difference"] else "-"
        lines.append(
            f"  reward {m['reward']}, broken {m['broken']}: {value} "
            f"over {numbers.count(m['paired_tasks'])} paired tasks{mark}"
        )
    return "\n".join(lines) + "\n"


def _specs(positional: str | None, flagged: list[str] | None, which: str) -> list[str]:
    specs = ([positional] if positional else []) + list(flagged or [])
    if not specs:
        raise AuditError(
            "bad_args",
            "compare-runs",
            f"arm {which} names no run (give {which} or --{which.lower()})",
        )
    return specs


def run(args: Any) -> int:
    under: list[str] = [x for item in (args.under_study or []) for x in item.split(",") if x]
    try:
        ks = [int(x) for item in args.k for x in item.split(",") if x] if args.k else None
    except ValueError:
        raise AuditError(
            "bad_args", "compare-runs", f"--k must be integers, got {args.k}"
        ) from None
    doc, pairs = compare(
        _specs(args.a, args.arm_a, "A"),
        _specs(args.b, args.arm_b, "B"),
        args.denominator,
        ks,
        args.seed,
        args.draws,
        under,
        args.trials,
        difference=args.difference,
        unit=args.unit,
        reward=args.reward,
        broken=args.broken,
        alpha=args.alpha,
        power=args.power,
    )
    text = render(doc, pairs)
    if args.out:
        out = Path(args.out)
        write_atomic(out / "pairs.csv", pairs_csv(pairs))
        write_atomic(out / "compare.json", canonical_json(doc))
        write_atomic(out / "compare.txt", text)
    print(text, end="")
    return 0
