"""A third reading of the trials contract (docs/trials-contract.md, trials v1), for tests.

Written from the contract's text, apart from both contestants and from the referee:
it imports none of impl_pandas, impl_pyarrow, audit or controls. Tables are read with
polars (a registry, or the adapter's trials.parquet) or Python's csv module (a CSV
leaderboard, 4.3); every number is an exact rational (fractions.Fraction) rounded to a
double only where the contract writes rd(...). It covers per-task values (6), the
statistics per entry (7, 16.3, 16.5), tiers, certain tiers and classes (8, 8.1) and
the census; not the null, the settings census nor compare-runs.

    python -m tests.reference.trials_v1 PREREG BUNDLE_DIR

prints the census, one line per cell, as census.csv would hold it. BUNDLE_DIR is the
folder the contestants read: for a trials source, the adapter's trials.parquet beside a
copy of the leaderboard (results/<arm>/bundle of a run).
"""

from __future__ import annotations

import csv
import math
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import blake3
import polars as pl
import yaml

BUILT_INS = {
    "attempted": {"select": "all", "k": None, "copies": "drop", "errored": "zero",
                  "unscored": "zero", "empty_slots": "ignore", "slots": None},
    "scored": {"select": "all", "k": None, "copies": "drop", "errored": "exclude",
               "unscored": "exclude", "empty_slots": "ignore", "slots": None},
}  # fmt: skip
RUN_MEASURES = (
    "run_mean",
    "se_runs_sample",
    "se_runs_population",
    "pooled_rate",
    "se_binomial_pooled",
    "se_clustered_tasks",
    "se_clustered_tasks_inspect",
)


# ---- exact numbers --------------------------------------------------------------------


def rd(x: Fraction) -> float:
    """The rational x rounded once to the nearest double, ties to even."""
    return x.numerator / x.denominator  # int / int true division is correctly rounded


def F(x: float) -> Fraction:
    return Fraction(x)


def rsum(xs) -> float:
    """⊕Σ: the exact sum of doubles, rounded once."""
    return rd(sum((F(x) for x in xs), Fraction(0)))


def sqrt_rd(x: float) -> float:
    """√̃x: the square root of a double rounded once (IEEE sqrt is correctly rounded)."""
    return math.sqrt(x)


def six(x: Fraction) -> str:
    q = round(x * 1_000_000)  # half to even, exactly
    sign = "-" if q < 0 else ""
    return f"{sign}{abs(q) // 1_000_000}.{abs(q) % 1_000_000:06d}"


def opt6(x: float | None) -> str:
    return "" if x is None else six(F(x))


def round_rule(x: Fraction, d: int, rule: str) -> Fraction:
    """x rounded to d decimals under half_even, half_up or down (8.1), exactly."""
    unit = Fraction(1, 10**d)
    q = x / unit
    whole = math.floor(abs(q))
    frac = abs(q) - whole
    if rule == "down":
        n = whole
    elif rule == "half_up":
        n = whole + (1 if frac >= Fraction(1, 2) else 0)
    else:  # half_even
        n = whole + (1 if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and whole % 2) else 0)
    return (n if q >= 0 else -n) * unit


def is_switch(x: Fraction, d: int, rule: str) -> bool:
    q = x * 10**d
    if rule == "down":
        return q.denominator == 1
    return (q - math.floor(q)) == Fraction(1, 2)


def decimals_of(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


# ---- per-task values (6) --------------------------------------------------------------


def task_values(rows: list[dict], pol: dict) -> dict:
    """6.2 steps 1 to 5 with 6.3, for one (entry, task): the counts and the values."""
    rows = rows if pol["copies"] == "keep" else [r for r in rows if r["copy"] == 0]
    if pol["select"] != "all":
        if any(r["started_at"] is None for r in rows):
            return {"unordered": True, "copies": None}
        rows = sorted(rows, key=lambda r: (r["started_at"], r["trial_id"], r["copy"]))
        k = pol["k"]
        rows = rows[:k] if pol["select"] == "earliest" else rows[max(0, len(rows) - k) :]
    values: list[float] = []
    excluded = 0
    broken_left = False
    for r in rows:
        if pol.get("reward", "original") == "regraded" and r.get("reward_regraded") is not None:
            values.append(r["reward_regraded"])
            continue
        if r.get("verifier_broken"):
            how = pol.get("broken_verifier", "as_zero")
            if how == "as_zero":
                values.append(0.0)
            elif how == "exclude_trial":
                excluded += 1
            else:  # exclude_task_both_sides: decided over every entry (task_values_all)
                broken_left = True
                values.append(0.0)
            continue
        status = r["status"]
        if status == "scored":
            values.append(r["reward"])
        elif pol[status] == "zero":
            values.append(0.0)
        else:
            excluded += 1
    zeros = 0
    if pol["empty_slots"] == "zero" and len(values) < pol["slots"]:
        zeros = pol["slots"] - len(values)
        values = values + [0.0] * zeros
    return {
        "unordered": False,
        "selected": len(rows),
        "scored": sum(r["status"] == "scored" for r in rows),
        "errored": sum(r["status"] == "errored" for r in rows),
        "unscored": sum(r["status"] == "unscored" for r in rows),
        "excluded": excluded,
        "zeros_added": zeros,
        "values": values,
        "broken": broken_left,
        "n_rows": len(rows),
    }


def trial_tasks(trials: list[dict], policies: dict) -> dict:
    """{(entry, policy): {task: values dict}} for a trials source."""
    by: dict = {}
    for r in trials:
        by.setdefault(r["run"], {}).setdefault(r["task"], []).append(r)
    out: dict = {}
    for name, pol in policies.items():
        for entry, tasks in by.items():
            out[(entry, name)] = {t: task_values(rows, pol) for t, rows in tasks.items()}
        if pol.get("broken_verifier") == "exclude_task_both_sides":
            gone = {t for (e, p), ts in out.items() if p == name for t, v in ts.items()
                    if v.get("broken")}  # fmt: skip
            for (e, p), ts in out.items():
                if p != name:
                    continue
                for t in gone & ts.keys():
                    v = ts[t]
                    if not v["unordered"]:
                        v.update(excluded=v["n_rows"], zeros_added=0, values=[])
    for (entry, _), ts in out.items():
        for t, v in ts.items():
            v["copies"] = sum(r["copy"] > 0 for r in by[entry][t])
            if not v["unordered"]:
                vals = v["values"]
                v["mean"] = rd(F(rsum(vals)) / len(vals)) if vals else None
                v["pass"] = rd(Fraction(sum(x == 1.0 for x in vals), len(vals))) if vals else None
    return out


def registry_tasks(rows: list[dict], src: dict, policies: dict) -> tuple[dict, dict]:
    """6.1: {(entry, policy): {task: {mean, pass, exact}}}, and the score decimals' H."""
    out: dict = {}
    half = Fraction(1, 2) / 10 ** src["score_decimals"]
    for r in rows:
        entry = "|".join(r[c] for c in src["entry"])
        n, p, c, s = (r[src[k]] for k in ("trials", "pass_count", "perfect_count", "score"))
        p_s = Fraction(Decimal(repr(float(s))))
        exact_cell = p == c and abs(p_s - src["score_scale"] * Fraction(c, n)) <= half
        for name, pol in policies.items():
            exact = exact_cell and pol["registry_means"] == "exact_where_possible"
            mean = rd(Fraction(c, n)) if exact else rd(F(float(s)) / src["score_scale"])
            out.setdefault((entry, name), {})[r[src["task"]]] = {
                "unordered": False, "mean": mean, "pass": rd(Fraction(c, n)), "exact": exact,
                "selected": n, "values": n,
            }  # fmt: skip
    return out, {"H": half / src["score_scale"]}


# ---- statistics per entry (7) ---------------------------------------------------------


def macro(xs: list[float], scale: float) -> float | None:
    if not xs:
        return None
    return rd(F(rd(F(rsum(xs)) / len(xs))) * F(scale))


def ci95(xs: list[float], scale: float) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    exact = [F(x) for x in xs]
    mean = sum(exact, Fraction(0)) / n
    v = sum(((x - mean) ** 2 for x in exact), Fraction(0)) / (n - 1)
    sd = sqrt_rd(rd(v))
    a = rd(F(1.96) * F(sd))
    b = rd(F(a) / F(sqrt_rd(float(n))))
    return rd(F(b) * F(scale))


_STREAMS: dict = {}


def boot_indices(seed: int, draws: int, n: int) -> list[list[int]]:
    key = (seed, draws, n)
    if key not in _STREAMS:
        _STREAMS[key] = [
            [
                int.from_bytes(blake3.blake3(f"boot:{seed}|{b}|{j}".encode()).digest()[:8], "big")
                % n
                for j in range(n)
            ]
            for b in range(draws)
        ]
    return _STREAMS[key]


def boot(xs: list[float], scale: float, seed: int, draws: int) -> tuple:
    n = len(xs)
    if n == 0:
        return None, None
    # exact sums as integers over one power of two (every double is k / 2^1074)
    unit = 2**1074
    ints = [F(x).numerator * (unit // F(x).denominator) for x in xs]
    reps = []
    for idx in boot_indices(seed, draws, n):
        total = rd(Fraction(sum(ints[i] for i in idx), unit))
        reps.append(rd(F(rd(F(total) / n)) * F(scale)))
    reps.sort()
    return reps[-(-draws // 40) - 1], reps[-(-39 * draws // 40) - 1]


def entry_stats(tasks: dict, scale: float, seed: int, draws: int, bound: dict | None) -> dict:
    names = sorted(tasks)
    unordered = sum(tasks[t]["unordered"] for t in names)
    kept = [tasks[t] for t in names if not tasks[t]["unordered"]]
    with_mean = [v for v in kept if v["mean"] is not None]
    m = [v["mean"] for v in with_mean]
    p = [v["pass"] for v in with_mean]
    s: dict = {"tasks": len(with_mean), "tasks_left_out": len(kept) - len(with_mean)}
    s["unordered_tasks"] = unordered
    for k in ("selected", "scored", "errored", "unscored", "excluded", "zeros_added"):
        s[k] = sum(v.get(k, 0) for v in kept)
    s["values"] = sum(len(v["values"]) for v in kept) if bound is None else s["selected"]
    nodata = unordered > 0
    s["reward_macro"] = None if nodata else macro(m, scale)
    s["reward_ci95"] = None if nodata else ci95(m, scale)
    s["pass_macro"] = None if nodata else macro(p, scale)
    s["pass_ci95"] = None if nodata else ci95(p, scale)
    lo, hi = (None, None) if nodata else boot(m, scale, seed, draws)
    s["reward_boot_low"], s["reward_boot_high"] = lo, hi
    lo, hi = (None, None) if nodata else boot(p, scale, seed, draws)
    s["pass_boot_low"], s["pass_boot_high"] = lo, hi
    n = len(m)
    s["task_count"] = None if nodata else float(n)
    s["rounded_tasks"] = sum(not v["exact"] for v in with_mean) if bound is not None else 0
    if bound is not None:  # a registry does not say (9, entries.csv)
        for k in ("unordered_tasks", "scored", "errored", "unscored", "excluded", "zeros_added"):
            s[k] = None
    if bound is None or nodata:  # trial sources: 0 where the statistic exists
        s["reward_bound"] = None if s["reward_macro"] is None else 0.0
        s["reward_ci95_bound"] = None if s["reward_ci95"] is None else 0.0
    else:
        h, r = bound["H"], s["rounded_tasks"]
        s["reward_bound"] = None if n == 0 else rd(F(scale) * h * r / n)
        w = (Fraction(196, 100) * F(scale) * h) ** 2 * r / (n * (n - 1)) if n > 1 else None
        s["reward_ci95_bound"] = None if w is None else sqrt_rd(rd(w))
    return s


def run_stats(trials: list[dict], entry: str, pol: dict, unit: str, scale: float) -> dict:
    """16.3's seven measures for one (entry, policy)."""
    if pol["select"] != "all" or pol["empty_slots"] != "ignore":
        return dict.fromkeys(RUN_MEASURES)
    # exclude_task_both_sides (6.3): a task with a broken, unregraded trial in any entry
    # leaves every entry, and its trials are no value here either
    gone = set()
    if pol.get("broken_verifier") == "exclude_task_both_sides":
        gone = {t for ts in trial_tasks(trials, {"p": pol}).values() for t, v in ts.items()
                if not v["unordered"] and v["broken"]}  # fmt: skip
    rows = [r for r in trials if r["run"] == entry and r["task"] not in gone]
    rows = rows if pol["copies"] == "keep" else [r for r in rows if r["copy"] == 0]
    reps: dict = {}
    tasks: dict = {}
    for r in rows:
        v = task_values([r], {**pol, "select": "all", "empty_slots": "ignore"})["values"]
        key = r["tb_run"] if unit == "tb_run" else (r["tb_run"], r["attempt"])
        if v:  # an excluded trial is no value: not in its replicate, and no task's cluster
            reps.setdefault(key, []).extend(v)
            tasks.setdefault(r["task"], []).extend(v)
    rates = [rd(F(rsum(vs)) / len(vs)) for _, vs in sorted(reps.items()) if vs]
    allv = [x for vs in reps.values() for x in vs]
    out = dict.fromkeys(RUN_MEASURES)
    S = F(scale)
    if rates:
        out["run_mean"] = rd(F(rd(F(rsum(rates)) / len(rates))) * S)
    R = len(rates)
    if R >= 2:
        mean = sum(map(F, rates), Fraction(0)) / R
        ss = sum(((F(x) - mean) ** 2 for x in rates), Fraction(0))
        out["se_runs_sample"] = rd(F(sqrt_rd(rd(ss / (R - 1) / R))) * S)
        out["se_runs_population"] = rd(F(sqrt_rd(rd(ss / R / R))) * S)
    N = len(allv)
    if N:
        p = rd(F(rsum(allv)) / N)
        out["pooled_rate"] = rd(F(p) * S)
        out["se_binomial_pooled"] = rd(F(sqrt_rd(rd(F(p) * (1 - F(p)) / N))) * S)
        q = sum(((F(rsum(vs)) - len(vs) * F(p)) ** 2 for vs in tasks.values()), Fraction(0))
        out["se_clustered_tasks"] = rd(F(sqrt_rd(rd(q / N**2))) * S)
        c = len(tasks)
        if c >= 2:
            out["se_clustered_tasks_inspect"] = rd(F(sqrt_rd(rd(q * c / ((c - 1) * N**2)))) * S)
    return out


def pass_k(tasks: dict, k: int, scale: float, hat: bool) -> float | None:
    """16.5: the entry's pass@k (or pass^k), one rounding of the exact mean."""
    if any(v["unordered"] for v in tasks.values()):
        return None
    est = []
    for v in tasks.values():
        n, c = len(v["values"]), sum(x == 1.0 for x in v["values"])
        if n < k:
            continue
        est.append(
            Fraction(math.comb(c, k), math.comb(n, k))
            if hat
            else 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        )
    return rd(F(scale) * sum(est, Fraction(0)) / len(est)) if est else None


# ---- tiers and classes (8) ------------------------------------------------------------


def judge(published, text: str | None, r: float | None, b: float | None, tol: dict, rule: str):
    """(recomputed, abs_diff, tier, bound, certain_tier) of one cell under one rule."""
    if published is None or (isinstance(published, float) and math.isnan(published)):
        d = tol["exact_decimals"] if isinstance(tol["exact_decimals"], int) else None
        rec = "" if r is None else recomputed_text(F(r), d, rule)
        return rec, "", "not_published", "" if r is None else opt6(b), "not_published"
    if r is None:
        return "", "", "no_data", "", "no_data"
    d = decimals_of(text) if tol["exact_decimals"] == "published" else tol["exact_decimals"]
    R = F(r)
    rec = recomputed_text(R, d, rule)
    if isinstance(published, float) and math.isinf(published):
        return rec, "", "divergent", opt6(b), "divergent"
    P = Fraction(Decimal(text)) if text is not None else Fraction(Decimal(repr(published)))
    diff = abs(P - R)
    tiers = [Fraction(Decimal(repr(t))) for t in tol["tiers"]]
    c = round_rule(P, d, rule)
    if round_rule(R, d, rule) == c:
        tier = "0"
    else:
        tier = next((str(i) for i, t in enumerate(tiers, 1) if diff <= t), "divergent")
    B = F(b)
    lo, hi = R - B, R + B
    if round_rule(lo, d, rule) == c and round_rule(hi, d, rule) == c:
        certain = "0"
    else:
        certain = next((str(i) for i, t in enumerate(tiers, 1) if diff + B <= t), None)
        if certain is None:
            h, u = Fraction(1, 2 * 10**d), Fraction(1, 10**d)
            if rule == "down":
                a, z = (c, c + u) if c > 0 else (c - u, c) if c < 0 else (-u, u)
            else:
                a, z = c - h, c + h
            left, right = max(lo, a), min(hi, z)
            empty = left > right or (left == right and round_rule(left, d, rule) != c)
            last = tiers[-1] if tiers else None
            far = last is None or diff > B + last
            certain = "divergent" if far and empty else "undetermined"
    return rec, six(diff), tier, opt6(b), certain


def recomputed_text(R: Fraction, d: int | None, rule: str) -> str:
    if d is not None and (
        (d < 6 and is_switch(round_rule(R, 6, "half_even"), d, rule)) or is_switch(R, d, rule)
    ):
        text = format(Decimal(float(R)), "f")  # a double's exact binary value, every digit
        return "0" if text in ("-0", "0") else text
    return six(R)


def read_leaderboard(bundle: Path, lb: dict) -> list[dict]:
    """Rows as {column: (value, text)}; text is a CSV decimal's own text, else None."""
    path = bundle / lb["table"]
    if path.suffix == ".csv":
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        out = []
        for row in rows:
            rec = {}
            for col, raw in row.items():
                kind = lb["types"][col]
                if raw == "":
                    rec[col] = (None, None)
                elif kind == "decimal":
                    rec[col] = (Fraction(Decimal(raw)), raw)
                elif kind == "integer":
                    rec[col] = (int(raw), None)
                else:
                    rec[col] = (raw, None)
            out.append(rec)
        return out
    return [{c: (v, None) for c, v in r.items()} for r in pl.read_parquet(path).to_dicts()]


def recompute(prereg_path: Path, bundle: Path) -> dict:
    """{"entries": {(entry, policy): stats}, "cells": {(row, column, rule): fields},
    "census": {(row, column): (class, best_tier, policies, min_abs_diff)}}."""
    pre = yaml.safe_load(prereg_path.read_text(encoding="utf-8"))
    src = pre["source"]
    scale, seed, draws = float(pre["scale"]), pre["seed"], pre["bootstrap_draws"]
    table = pl.read_parquet(bundle / src["table"]).to_dicts()
    if src["kind"] == "registry":
        policies = pre["policies"]
        per_task, bound = registry_tasks(table, src, policies)
        trials = []
    else:
        policies = {**BUILT_INS, **pre["policies"]}
        per_task, bound = trial_tasks(table, policies), None
        trials = table
    entries = {k: entry_stats(v, scale, seed, draws, bound) for k, v in per_task.items()}
    unit = (pre.get("runs") or {}).get("unit", "tb_run")
    if pre.get("runs"):
        for (entry, name), s in entries.items():
            s.update(run_stats(trials, entry, policies[name], unit, scale))
    result = {"entries": entries, "cells": {}, "census": {}}
    lb = pre["leaderboard"]
    if lb is None:
        return result
    cols = lb["columns"]
    for row in read_leaderboard(bundle, lb):
        rid = "|".join(row[c][0] for c in lb["row_key"])
        for col in [*row, *[c for c, s in cols["measured"].items() if s.get("published") is False]]:
            if col in cols["structural"] or col in cols["no_antecedent"]:
                kind = "structural" if col in cols["structural"] else "no_antecedent"
                result["census"][(rid, col)] = (kind, "", "", "")
                continue
            spec = cols["measured"][col]
            published, text = row.get(col, (None, None))
            if isinstance(published, Fraction):  # a CSV decimal: judged as its text
                published = float(published)
            measures = spec["measure"] if isinstance(spec["measure"], list) else [spec["measure"]]
            rounds = spec.get("rounding", ["half_even"])
            tol = pre["tolerances"][spec["row_tolerances"].get(rid, spec["tolerance"])]
            per = {}
            for name in spec["policies"]:
                s = entries.get((rid, name))
                for measure in measures:
                    r, b = measured_value(s, measure, spec, per_task.get((rid, name)), scale)
                    for rule in rounds:
                        label = name
                        if isinstance(spec["measure"], list):
                            label += f"/{measure}"
                        if "rounding" in spec:
                            label += f"/{rule}"
                        per[label] = judge(published, text, r, b, tol, rule)
            for label, fields in per.items():
                result["cells"][(rid, col, label)] = fields
            integer = {lab: int(f[2]) for lab, f in per.items() if f[2].isdigit()}
            diffs = [Fraction(f[1]) for f in per.values() if f[1]]
            least = six(min(diffs)) if diffs else ""
            tiers = {f[2] for f in per.values()}
            if "not_published" in tiers:
                result["census"][(rid, col)] = ("not_published", "", "", "")
            elif integer:
                best = min(integer.values())
                result["census"][(rid, col)] = (
                    "reproduced", str(best), ";".join(sorted(integer)), least
                )  # fmt: skip
            elif "divergent" in tiers:
                result["census"][(rid, col)] = ("divergent", "", "", least)
            else:
                result["census"][(rid, col)] = ("no_data", "", "", least)
    return result


def measured_value(s: dict | None, measure: str, spec: dict, tasks: dict | None, scale: float):
    """(R, bound) of a measure for one (entry, policy); (None, None) without data."""
    if s is None:
        return None, None
    if measure in ("pass_at_k", "pass_hat_k"):
        r = pass_k(tasks, spec["k"], scale, measure == "pass_hat_k")
        return r, (None if r is None else 0.0)
    r = s.get(measure)
    if r is None:
        return None, None
    b = {"reward_macro": s["reward_bound"], "reward_ci95": s["reward_ci95_bound"]}
    return r, b.get(measure, 0.0)


def main(argv: list[str]) -> int:
    census = recompute(Path(argv[0]), Path(argv[1]))["census"]
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["row_id", "column", "class", "best_tier", "policies", "min_abs_diff"])
    for (rid, column), fields in sorted(census.items()):
        out.writerow([rid, column, *fields])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
