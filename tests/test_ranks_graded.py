"""The rank census of a graded (`mean`) column (docs/contract.md, Ranks): the seeded
paired sign-flip permutation test, both contestants byte-identical.

Checked by independent methods written here: shared and greater-item counts by plain
loops; every p by a separate recompute of the contract's labelled blake3 draws in
Fractions (the full 8-byte key, not one byte); on a tiny table, the p of each pair
against scipy's exact permutation test (all 2^6 sign assignments) within the Monte Carlo
error of the draws, two of them worked by hand; the bootstrap by a separate recompute
of the contract's counter-based draws in Fractions.
"""

from __future__ import annotations

import csv
import math
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import yaml
from blake3 import blake3
from scipy.stats import permutation_test

from audit.cells import prereg as cells_prereg
from audit.cells import record as cells_record
from audit.trials import prereg as trials_prereg
from audit.trials import record as trials_record
from tests.conftest import ROOT, impl_python, run

IMPLS = ("pandas", "pyarrow")
# alpha_cost's published order in the demo: m4 2.54, m1 1.1429, m2 0.2333, m3 0.0
ORDER = ["demo/m4", "demo/m1", "demo/m2", "demo/m3"]
MASK = (1 << 64) - 1


def _bundle(demo: Path, out: Path, costs: dict[str, dict[str, float | None]]) -> None:
    """A copy of the demo bundle whose alpha rows are the given costs (resolved true)."""
    out.mkdir()
    (out / "leaderboard.parquet").write_bytes((demo / "leaderboard.parquet").read_bytes())
    inst = pl.read_parquet(demo / "instances.parquet")
    models = dict(inst.select("id", "model").unique().iter_rows())
    rows = [
        (rid, models[rid], "alpha", item, True, value)
        for rid, items in costs.items()
        for item, value in items.items()
    ]
    alpha = pl.DataFrame(rows, schema=inst.schema, orient="row")
    pl.concat([alpha, inst.filter(pl.col("group") != "alpha")]).write_parquet(
        out / "instances.parquet"
    )


def _run_both(tmp: Path, bundle: Path, spec: dict) -> dict[str, dict[str, bytes]]:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["ranks"] = spec
    prereg = tmp / "prereg.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    got = {}
    for impl in IMPLS:
        dst = tmp / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        got[impl] = {n: (dst / n).read_bytes() for n in ("ranks.csv", "rank_pairs.csv")}
    assert got["pandas"] == got["pyarrow"]
    return got


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(data.decode("utf-8").splitlines()))


def _flipped(seed: int, column: str, d: int, j: int) -> bool:
    key = blake3(f"perm:{seed}|{column}|{d}|{j}".encode()).digest()[:8]
    return int.from_bytes(key, "big") >= 2**63


def _p(xa: dict[str, Fraction], xb: dict[str, Fraction], items: list[str], seed: int,
       draws: int) -> Fraction:  # fmt: skip
    """The contract's sign-flip p, recomputed by loops over each draw."""
    shared = [(j, xa[u] - xb[u]) for j, u in enumerate(items) if u in xa and u in xb]
    t = sum((v for _, v in shared), Fraction(0))
    hits = 0
    for d in range(draws):
        td = sum((-v if _flipped(seed, "alpha_cost", d, j) else v for j, v in shared), Fraction(0))
        hits += abs(td) >= abs(t)
    return Fraction(1 + hits, 1 + draws)


def _bootstrap(xs: list[dict[str, Fraction]], items: list[str], seed: int, draws: int):
    """The contract's bootstrap (column position 0), recomputed with Fraction means."""

    def mix(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)

    n = len(items)
    per_row: list[list[int]] = [[] for _ in xs]
    for d in range(draws):
        counts = [0] * n
        for i in range(n):
            counts[mix((seed + 0x9E3779B97F4A7C15 * (1 + d * n + i)) & MASK) % n] += 1
        means = []
        for x in xs:
            den = sum(w for u, w in zip(items, counts) if u in x)
            num = sum((w * x[u] for u, w in zip(items, counts) if u in x), Fraction(0))
            means.append(num / den if den else Fraction(0))
        for r, m in enumerate(means):
            per_row[r].append(1 + sum(1 for y in means if y > m))
    return per_row


def test_graded_ranks_against_a_separate_recompute(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """60 items per row, costs at nine decimals (doubles with long binary fractions, so
    the pandas contestant's whole numbers outgrow int64), nulls and NaN, one row missing
    ten items; alpha 0.1, Holm, 200 draws."""
    rng = random.Random(17)
    means = {"demo/m4": 2.5, "demo/m1": 1.1, "demo/m2": 1.0, "demo/m3": 0.0}
    items = [f"alpha-{i:02d}" for i in range(60)]
    costs: dict[str, dict[str, float | None]] = {}
    for rid, mu in means.items():
        costs[rid] = {}
        for u in items:
            if rid == "demo/m3" and u >= "alpha-50":
                continue
            roll = rng.random()
            costs[rid][u] = None if roll < 0.04 else math.nan if roll < 0.07 else round(
                rng.gauss(mu, 1.5), 9)  # fmt: skip
    _bundle(demo_bundle, tmp_path / "bundle", costs)
    spec = {"columns": ["alpha_cost"], "alpha": 0.1, "correction": "holm", "seed": 9,
            "draws": 200}  # fmt: skip
    got = _run_both(tmp_path, tmp_path / "bundle", spec)
    pairs = _rows(got["pyarrow"]["rank_pairs.csv"])
    rows = _rows(got["pyarrow"]["ranks.csv"])
    x = {
        rid: {u: Fraction(v) for u, v in c.items() if v is not None and not math.isnan(v)}
        for rid, c in costs.items()
    }
    assert [r["row_id"] for r in rows] == ORDER
    ps = []
    for p in pairs:
        xa, xb = x[p["row_a"]], x[p["row_b"]]
        shared = [u for u in items if u in xa and u in xb]
        counts = (len(shared), sum(xa[u] > xb[u] for u in shared),
                  sum(xa[u] < xb[u] for u in shared))  # fmt: skip
        assert (int(p["shared"]), int(p["a_only"]), int(p["b_only"])) == counts, p
        want = _p(xa, xb, items, 9, 200)
        assert abs(Fraction(p["p"]) - want) <= Fraction(1, 2 * 10**12), (p, want)
        ps.append((want, sum(xa[u] - xb[u] for u in shared)))
    # Holm in its textbook step-down
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i][0])
    running, adj = Fraction(0), [Fraction(0)] * m
    for j, i in enumerate(order):
        running = max(running, min(Fraction(1), (m - j) * ps[i][0]))
        adj[i] = running
    for p, q, (_, t) in zip(pairs, adj, ps):
        assert abs(Fraction(p["p_adjusted"]) - q) <= Fraction(1, 2 * 10**12), p
        want = "tied" if q > Fraction(1, 10) else ("separated" if t > 0 else "reversed")
        assert p["verdict"] == want, p
    verdicts = {(p["row_a"], p["row_b"]): p["verdict"] for p in pairs}
    # m4 (mean 2.5) against m3 (mean 0) over ~45 items: no draw reaches |T|
    assert verdicts[("demo/m4", "demo/m3")] == "separated"
    assert float(next(p["p"] for p in pairs if p["row_a"] == "demo/m4" and
                      p["row_b"] == "demo/m3")) == pytest.approx(1 / 201)  # fmt: skip
    # m1 (1.1) and m2 (1.0): a gap far inside the noise
    assert verdicts[("demo/m1", "demo/m2")] == "tied"
    for r, row in enumerate(rows):
        assert row["passes"] == ""
        assert int(row["items"]) == len(x[row["row_id"]])
        assert row["next_verdict"] == (verdicts[(ORDER[r], ORDER[r + 1])] if r < 3 else "")
    print("alpha_cost top row's tie group:", rows[0]["tie_group"])
    per_row = _bootstrap([x[r] for r in ORDER], items, 9, 200)
    cut = int(200 * 0.1 / 2) + 1  # 11
    for row, ranks in zip(rows, per_row):
        ranks.sort()
        assert (int(row["rank_lo"]), int(row["rank_hi"])) == (ranks[cut - 1], ranks[-cut]), row


def test_graded_p_against_scipy_exact_permutation(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """Six items, whole-number scores (the pandas contestant's int64 path). scipy's
    permutation test with every one of the 2^6 sign assignments gives each pair's exact
    p; the contract's p from 4,000 draws lies within four standard errors of it. By hand:
    m4 - m3 is 5 on every item, so only the identity and its mirror reach |T| = 30: exact
    p = 2/64; m1 - m2 is (1, -1, 2, -2, 0, 0), T = 0: p = 1 exactly (every draw reaches 0)."""
    items = [f"alpha-{i:02d}" for i in range(6)]
    scores = {
        "demo/m4": [5, 5, 5, 5, 5, 5],
        "demo/m1": [3, 1, 4, 1, 2, 2],
        "demo/m2": [2, 2, 2, 3, 2, 2],
        "demo/m3": [0, 0, 0, 0, 0, 0],
    }
    costs = {rid: {u: float(v) for u, v in zip(items, s)} for rid, s in scores.items()}
    _bundle(demo_bundle, tmp_path / "bundle", costs)
    draws = 4000
    spec = {"columns": ["alpha_cost"], "alpha": 0.05, "correction": "bh", "seed": 3,
            "draws": draws}  # fmt: skip
    pairs = _rows(_run_both(tmp_path, tmp_path / "bundle", spec)["pyarrow"]["rank_pairs.csv"])
    assert len(pairs) == 6
    for p in pairs:
        xa = np.array(scores[p["row_a"]], dtype=float)
        xb = np.array(scores[p["row_b"]], dtype=float)
        exact = permutation_test(
            (xa, xb), lambda a, b: np.sum(a - b), permutation_type="samples",
            n_resamples=np.inf, alternative="two-sided",
        ).pvalue  # fmt: skip
        got = float(p["p"])
        assert abs(got - exact) <= 4 * math.sqrt(exact * (1 - exact) / draws) + 1 / draws, (
            p, exact,
        )  # fmt: skip
        if (p["row_a"], p["row_b"]) == ("demo/m4", "demo/m3"):
            assert exact == pytest.approx(2 / 64)
            # five pairs are all one sign (exact p 2/64 each): BH about 6/5 * 2/64 = 0.0375
            assert p["verdict"] == "separated"
        if (p["row_a"], p["row_b"]) == ("demo/m1", "demo/m2"):
            assert p["p"] == "1.000000000000" and p["verdict"] == "tied"
            assert (p["a_only"], p["b_only"]) == ("2", "2")


def _leaderboard_record(recipes: dict[str, str], ranks: cells_record.Ranks) -> cells_record.Prereg:
    """The demo's prereg record with these measured columns (name: recipe) and ranks."""
    return replace(
        cells_prereg.load_record(ROOT / "prereg" / "demo.yaml"),
        measured=cells_record.frozen_mapping(
            {n: cells_record.Column(n, r, tolerance="t") for n, r in recipes.items()}
        ),
        ranks=ranks,
    )


def test_report_words_for_a_graded_column() -> None:
    """The method names the sign-flip test only when a declared column is a mean, and a
    graded row's empty passes shows as '-' (words and rows written here by hand)."""
    from audit.kinds.arm_kind import LEADERBOARD
    from audit.ranks.record import summary

    doc = _leaderboard_record(
        {"alpha_cost": "mean", "s": "rate"},
        cells_record.Ranks(("alpha_cost",), 0.05, "bh", 3, 4000),
    )
    rows = [
        {"column": "alpha_cost", "row_id": "a", "published_rank": "1", "passes": "",
         "items": "6", "tie_group": "a", "rank_lo": "1", "rank_hi": "1",
         "next_verdict": "separated"},
        {"column": "alpha_cost", "row_id": "b", "published_rank": "2", "passes": "",
         "items": "6", "tie_group": "b", "rank_lo": "2", "rank_hi": "2", "next_verdict": ""},
    ]  # fmt: skip
    paragraphs, table = summary(doc, rows, LEADERBOARD)
    assert paragraphs[0] == (
        "Method: exact McNemar on shared items, for graded (mean) columns a paired sign-flip "
        "permutation test of the summed differences from 4,000 seeded draws, "
        "Benjamini-Hochberg, alpha 0.05; rank intervals from 4,000 paired bootstrap draws "
        "over items, seed 3; a sign-flip p is estimated from the 4,000 draws and is never "
        "below 1 / 4,001, printed < 0.0003."  # 1/4001 = 0.00024994, up to one digit
    )
    assert [t["passes / items"] for t in table] == ["- / 6", "- / 6"]
    doc = replace(doc, ranks=replace(doc.ranks, columns=("s",)))
    assert "sign-flip" not in summary(doc, rows, LEADERBOARD)[0][0]


def test_report_states_the_floor_of_a_sign_flip_p(tmp_path: Path) -> None:
    """A sign-flip p at its floor 1 / (1 + draws) is printed "< f" through the one number
    formatter, as the permutation null's p is, and the method says the floor; an exact
    McNemar p is not floored. Worked by hand: 400 draws, floor 1/401 = 0.00249..., shown
    "< 0.003" (rounded up to one digit); p 0.5 at the null's step 1/400 (three decimals)
    "0.500"; Holm over 3 pairs, 3/401 = 0.0075 at two digits. A McNemar p of 2/2^10 =
    0.001953125 is below a tenth of alpha 0.05: "< 0.005"; 0.375 "0.38"."""
    from audit.kinds.arm_kind import LEADERBOARD, TRIALS
    from audit.ranks.record import certificate_lines, summary

    doc = replace(
        trials_prereg.load_record(ROOT / "prereg" / "terminal-bench-sample.yaml"),
        ranks=trials_record.Ranks(("score",), "S", 0.05, "holm", 4, 400),
    )
    rows = [
        {"column": "score", "row_id": r, "published_rank": str(i + 1), "passes": "",
         "items": "10", "tie_group": r, "rank_lo": "1", "rank_hi": "3", "next_verdict": v}
        for i, (r, v) in enumerate([("a", "separated"), ("b", "tied"), ("c", "")])
    ]  # fmt: skip
    pairs = [
        {"column": "score", "row_a": a, "row_b": b, "p": p, "p_adjusted": q}
        for a, b, p, q in [("a", "b", "0.002493765586", "0.007481296758"),
                           ("a", "c", "0.002493765586", "0.007481296758"),
                           ("b", "c", "0.500000000000", "0.500000000000")]
    ]  # fmt: skip
    paragraphs, table = summary(doc, rows, TRIALS, pairs)
    assert paragraphs[0].endswith(
        "seed 4; a sign-flip p is estimated from the 400 draws and is never below 1 / 401, "
        "printed < 0.003."
    )
    assert [t["test against the next"] for t in table] == [
        "p < 0.003, adjusted 0.0075", "p 0.500, adjusted 0.50", "-"
    ]  # fmt: skip
    run1 = tmp_path / "recompute" / "pandas" / "run1"
    run1.mkdir(parents=True)
    for name, lines in (("ranks.csv", rows), ("rank_pairs.csv", pairs)):
        with (run1 / name).open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, list(lines[0]))
            w.writeheader()
            w.writerows(lines)
    cert = certificate_lines(tmp_path, doc, TRIALS)
    assert "- score: a above b: separated (p < 0.003, adjusted 0.0075)" in cert
    assert "- score: b above c: tied (p 0.500, adjusted 0.50)" in cert
    # a leaderboard's rate column: exact McNemar, no floor of draws; no words on one
    doc = _leaderboard_record(
        {"score": "rate"}, cells_record.Ranks(("score",), 0.05, "holm", 4, 400)
    )
    pairs[0]["p"], pairs[2]["p"] = "0.001953125000", "0.375000000000"
    paragraphs, table = summary(doc, rows, LEADERBOARD, pairs)
    assert "never below" not in paragraphs[0]
    assert [t["test against the next"] for t in table] == [
        "p < 0.005, adjusted 0.0075", "p 0.38, adjusted 0.50", "-"
    ]  # fmt: skip
