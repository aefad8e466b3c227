"""``python -m audit compare-runs A B``: a paired comparison of two runs over tasks
(docs/trials-contract.md section 11). Referee side; statistics in audit/stats.py.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import polars as pl

from audit import stats
from audit.adapter import SETTING_NAMES, adapt, canonical_json
from audit.errors import AuditError
from audit.files import write_atomic

F6 = stats.fmt_fraction


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
        rows = table.filter(pl.col("run") == spec).to_dicts()
        if not rows:
            raise AuditError("unknown_run", trials, f"no run named {spec!r} in the trial table")
        return spec, [r for r in rows if r["copy"] == 0]
    folder = Path(spec)
    if not folder.is_dir():
        raise AuditError("missing_file", spec, "run folder does not exist or is not a folder")
    name = folder.resolve().name if folder.name in ("", ".", "..") else folder.name
    table, _ = adapt(str(folder.parent), only=folder.name)
    return name, [r for r in table.to_dicts() if r["copy"] == 0]


def _values(rows: list[dict[str, Any]], denominator: str) -> dict[str, list[Fraction]]:
    """Per task, the values in trial_id order (11.1); tasks with rows but no values: []."""
    out: dict[str, list[Fraction]] = {}
    for r in sorted(rows, key=lambda r: (r["task"], r["trial_id"])):
        vals = out.setdefault(r["task"], [])
        if r["status"] == "scored":
            vals.append(Fraction(repr(float(r["reward"]))))
        elif denominator == "attempted":
            vals.append(Fraction(0))
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


def compare(
    spec_a: str,
    spec_b: str,
    denominator: str,
    ks: list[int],
    seed: int,
    draws: int,
    under_study: list[str],
    trials: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(compare.json document, pairs rows). Raises AuditError on refusal."""
    if denominator not in ("attempted", "scored"):
        raise AuditError("bad_args", "compare-runs", f"unknown denominator {denominator!r}")
    for s in under_study:
        if s not in SETTING_NAMES:
            raise AuditError("bad_args", "compare-runs", f"{s!r} is not a setting (section 2.3)")
    if not ks or any(k < 1 for k in ks) or len(set(ks)) != len(ks):
        raise AuditError("bad_args", "compare-runs", f"--k must be unique integers >= 1, got {ks}")
    if draws < 1:
        raise AuditError("bad_args", "compare-runs", "--draws must be >= 1")
    label_a, rows_a = load_run(spec_a, trials)
    label_b, rows_b = load_run(spec_b, trials)
    va, vb = _values(rows_a, denominator), _values(rows_b, denominator)
    paired = sorted(t for t in va if va[t] and vb.get(t))
    only_a = sorted(t for t in va if va[t] and not vb.get(t))
    only_b = sorted(t for t in vb if vb[t] and not va.get(t))
    no_values = sorted(t for t in set(va) | set(vb) if not va.get(t) and not vb.get(t))
    if not paired:
        raise AuditError("no_pairs", f"{label_a} vs {label_b}", "no task has values in both runs")
    settings = _settings(label_a, label_b, rows_a, rows_b, paired, under_study)
    a = [va[t] for t in paired]
    b = [vb[t] for t in paired]
    mean_a = [sum(x, Fraction(0)) / len(x) for x in a]
    mean_b = [sum(y, Fraction(0)) / len(y) for y in b]
    d = [x - y for x, y in zip(mean_a, mean_b, strict=True)]
    ti = stats.t_interval(d)
    sf = stats.sign_flip(d, seed, draws)
    wt = stats.within_task(a, b, seed, draws)

    def side(label: str, vals: list[list[Fraction]]) -> dict[str, Any]:
        n = sum(len(x) for x in vals)
        k = sum(1 for x in vals for v in x if v == 1)
        low, high = stats.wilson(k, n)
        return {
            "run": label,
            "tasks": len(vals),
            "values": n,
            "passes": k,
            "wilson_low": stats.fmt_float(low),
            "wilson_high": stats.fmt_float(high),
        }

    pass_k = []
    for k in sorted(ks):
        elig = [i for i in range(len(paired)) if len(a[i]) >= k and len(b[i]) >= k]
        entry: dict[str, Any] = {
            "k": k,
            "eligible_tasks": len(elig),
            "left_out": len(paired) - len(elig),
        }
        for name, fn in (("pass_at_k", stats.pass_at_k), ("pass_pow_k", stats.pass_pow_k)):
            if not elig:
                entry.update({f"a_{name}": None, f"b_{name}": None, f"diff_{name}": None})
                continue
            ra = sum((fn(len(a[i]), sum(v == 1 for v in a[i]), k) for i in elig), Fraction(0))
            rb = sum((fn(len(b[i]), sum(v == 1 for v in b[i]), k) for i in elig), Fraction(0))
            ra, rb = ra / len(elig), rb / len(elig)
            entry.update({f"a_{name}": F6(ra), f"b_{name}": F6(rb), f"diff_{name}": F6(ra - rb)})
        pass_k.append(entry)
    doc = {
        "a": side(label_a, a),
        "b": side(label_b, b),
        "denominator": denominator,
        "seed": seed,
        "draws": draws,
        "paired_tasks": len(paired),
        "only_a": only_a,
        "only_b": only_b,
        "no_values": no_values,
        "mean_difference": F6(ti["mean"]),
        "sd_difference": _opt(ti["sd"]),
        "t_df": ti["df"],
        "t_quantile": _opt(ti["q"]),
        "t_low": _opt(ti["low"]),
        "t_high": _opt(ti["high"]),
        "sign_flip": {**sf, "p": F6(sf["p"]), "p_min": F6(sf["p_min"])},
        "within_task": {**wt, "p": F6(wt["p"])},
        "pass_k": pass_k,
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


def render(doc: dict[str, Any], pairs: list[dict[str, Any]]) -> str:
    a, b = doc["a"], doc["b"]
    st = doc["settings"]
    lines = [
        f"compare-runs: A = {a['run']}, B = {b['run']} (A - B), denominator {doc['denominator']}",
        f"paired tasks {doc['paired_tasks']}; values A {a['values']}, B {b['values']}; "
        f"only A: {', '.join(doc['only_a']) or '-'}; only B: {', '.join(doc['only_b']) or '-'}; "
        f"no values: {', '.join(doc['no_values']) or '-'}",
        f"settings under study: {', '.join(st['under_study']) or '-'} "
        f"(differing: {', '.join(st['differing_under_study']) or '-'})",
        f"settings not recorded in either run: {', '.join(st['not_recorded_in_either']) or '-'}",
        "",
        f"{'task':<40}{'A mean':>10}{'B mean':>10}{'A - B':>11}",
    ]
    lines += [
        f"{p['task']:<40}{p['a_mean']:>10}{p['b_mean']:>10}{p['difference']:>11}" for p in pairs
    ]
    lines.append("")
    if doc["t_df"] is None:
        lines.append(f"mean difference {doc['mean_difference']} (one task: no t interval)")
    else:
        lines.append(
            f"mean difference {doc['mean_difference']}, sd {doc['sd_difference']}; "
            f"95% t interval [{doc['t_low']}, {doc['t_high']}] "
            f"(df {doc['t_df']}, q {doc['t_quantile']})"
        )
    sf, wt = doc["sign_flip"], doc["within_task"]
    lines.append(
        f"sign-flip test over tasks ({sf['method']}"
        + (f", {doc['draws']} draws" if sf["method"] == "monte_carlo" else "")
        + f"): {sf['count']}/{sf['total']}, p {sf['p']} (smallest possible p {sf['p_min']})"
    )
    lines.append(
        f"within-task permutation test ({wt['method']}"
        + (f", {doc['draws']} draws" if wt["method"] == "monte_carlo" else "")
        + f"): {wt['count']}/{wt['total']} relabellings, p {wt['p']}"
    )
    for s in (a, b):
        lines.append(
            f"Wilson 95% ({s['run']}, pooled trials, descriptive): {s['passes']}/{s['values']} "
            f"[{s['wilson_low']}, {s['wilson_high']}]"
        )
    for e in doc["pass_k"]:
        if e["a_pass_at_k"] is None:
            lines.append(f"k={e['k']}: no eligible task ({e['left_out']} left out)")
            continue
        lines.append(
            f"k={e['k']} ({e['eligible_tasks']} tasks, {e['left_out']} left out): "
            f"pass@k A {e['a_pass_at_k']} B {e['b_pass_at_k']} (diff {e['diff_pass_at_k']}); "
            f"pass^k A {e['a_pass_pow_k']} B {e['b_pass_pow_k']} (diff {e['diff_pass_pow_k']})"
        )
    return "\n".join(lines) + "\n"


def run(args: Any) -> int:
    under: list[str] = [x for item in (args.under_study or []) for x in item.split(",") if x]
    try:
        ks = [int(x) for item in args.k for x in item.split(",") if x]
    except ValueError:
        raise AuditError(
            "bad_args", "compare-runs", f"--k must be integers, got {args.k}"
        ) from None
    doc, pairs = compare(
        args.a, args.b, args.denominator, ks, args.seed, args.draws, under, args.trials
    )
    text = render(doc, pairs)
    if args.out:
        out = Path(args.out)
        write_atomic(out / "pairs.csv", pairs_csv(pairs))
        write_atomic(out / "compare.json", canonical_json(doc))
        write_atomic(out / "compare.txt", text)
    print(text, end="")
    return 0
