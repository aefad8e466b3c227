"""The rank census declared in the prereg (docs/contract.md, Ranks), both contestants.

Each contestant runs as its own process on a bundle built here from the demo: the
alpha group's outcomes replaced by 60 items per row drawn from a seeded generator
(pass rates 0.9, 0.6, 0.5, 0.1 by row, some nulls, one row missing items). Every
figure is checked by an independent method written in this file: the discordant
counts by plain loops over the generated outcomes, the p-values by scipy's
binomial test, Holm and BH by their textbook step-down/step-up in floats, the
bootstrap by a separate recompute of the contract's counter-based draws.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import polars as pl
import pytest
import yaml
from scipy.stats import binomtest

from tests.conftest import ROOT, impl_python, run

IMPLS = ("pandas", "pyarrow")
RATES = {"demo/m2": 0.9, "demo/m4": 0.6, "demo/m1": 0.5, "demo/m3": 0.1}
ITEMS = [f"alpha-{i:02d}" for i in range(60)]


def _bundle(demo: Path, out: Path) -> dict[str, dict[str, bool]]:
    """A copy of the demo bundle with generated alpha outcomes; returns them."""
    out.mkdir()
    (out / "leaderboard.parquet").write_bytes((demo / "leaderboard.parquet").read_bytes())
    inst = pl.read_parquet(demo / "instances.parquet")
    models = dict(inst.select("id", "model").unique().iter_rows())
    rng = random.Random(31)
    outcomes: dict[str, dict[str, bool]] = {}
    rows = []
    for rid, rate in RATES.items():
        outcomes[rid] = {}
        for item in ITEMS:
            if rid == "demo/m3" and item >= "alpha-50":
                continue  # m3 holds only 50 of the 60 items
            value: bool | None = rng.random() < rate
            if rng.random() < 0.05:
                value = None  # a null leaves the test
            else:
                outcomes[rid][item] = bool(value)
            rows.append((rid, models[rid], "alpha", item, value, 1.0))
    alpha = pl.DataFrame(rows, schema=inst.schema, orient="row")
    pl.concat([alpha, inst.filter(pl.col("group") != "alpha")]).write_parquet(
        out / "instances.parquet"
    )
    return outcomes


def _prereg(out: Path, ranks: dict) -> Path:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["ranks"] = ranks
    path = out / "prereg.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _run_both(prereg: Path, bundle: Path, out: Path) -> dict[str, dict[str, bytes]]:
    got = {}
    for impl in IMPLS:
        dst = out / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        got[impl] = {p.name: p.read_bytes() for p in sorted(dst.iterdir())}
    return got


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(data.decode("utf-8").splitlines()))


MASK = (1 << 64) - 1


def _bootstrap(outcomes: list[dict[str, bool]], items: list[str], seed: int, c: int, draws: int):
    """The contract's bootstrap, recomputed here: ranks per row over the draws."""

    def mix(z: int) -> int:  # SplitMix64's finaliser, as the contract writes it
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return z ^ (z >> 31)

    n = len(items)
    per_row: list[list[int]] = [[] for _ in outcomes]
    for d in range(draws):
        counts = [0] * n
        for i in range(n):
            state = (seed + 0x9E3779B97F4A7C15 * (1 + (c * draws + d) * n + i)) & MASK
            counts[mix(state) % n] += 1
        rates = []
        for out in outcomes:
            held = sum(w for u, w in zip(items, counts) if u in out)
            won = sum(w for u, w in zip(items, counts) if out.get(u))
            rates.append(won / held if held else 0.0)  # equal fractions give equal floats
        for r, rate in enumerate(rates):
            per_row[r].append(1 + sum(1 for x in rates if x > rate))
    return per_row


@pytest.mark.parametrize("correction", ["holm", "bh"])
def test_ranks_against_scipy_and_a_separate_bootstrap(
    demo_bundle: Path, tmp_path: Path, correction: str
) -> None:
    outcomes = _bundle(demo_bundle, tmp_path / "bundle")
    spec = {"columns": ["alpha_score"], "alpha": 0.05, "correction": correction,
            "seed": 5, "draws": 60}  # fmt: skip
    got = _run_both(_prereg(tmp_path, spec), tmp_path / "bundle", tmp_path / "out")
    assert got["pandas"]["ranks.csv"] == got["pyarrow"]["ranks.csv"]
    assert got["pandas"]["rank_pairs.csv"] == got["pyarrow"]["rank_pairs.csv"]
    pairs = _rows(got["pyarrow"]["rank_pairs.csv"])
    rows = _rows(got["pyarrow"]["ranks.csv"])

    # published order by the demo's alpha_score: m2 66.62, m4 40.0, m1 37.5, m3 0.0
    order = ["demo/m2", "demo/m4", "demo/m1", "demo/m3"]
    assert [r["row_id"] for r in rows] == order
    assert [(p["row_a"], p["row_b"]) for p in pairs] == [
        (order[a], order[b]) for a in range(4) for b in range(a + 1, 4)
    ]
    ps = []
    for p in pairs:
        oa, ob = outcomes[p["row_a"]], outcomes[p["row_b"]]
        shared = [u for u in ITEMS if u in oa and u in ob]
        a_only = sum(1 for u in shared if oa[u] and not ob[u])
        b_only = sum(1 for u in shared if ob[u] and not oa[u])
        assert (int(p["shared"]), int(p["a_only"]), int(p["b_only"])) == (
            len(shared), a_only, b_only,
        )  # fmt: skip
        d = a_only + b_only
        expected = binomtest(min(a_only, b_only), d, 0.5).pvalue if d else 1.0
        assert abs(float(p["p"]) - expected) <= 1e-12, p
        ps.append(expected)
    # the correction, textbook style in floats
    m = len(ps)
    idx = sorted(range(m), key=lambda i: ps[i])
    adj = [0.0] * m
    if correction == "holm":
        run_max = 0.0
        for j, i in enumerate(idx):
            run_max = max(run_max, min(1.0, (m - j) * ps[i]))
            adj[i] = run_max
    else:
        run_min = 1.0
        for j in reversed(range(m)):
            run_min = min(run_min, m * ps[idx[j]] / (j + 1))
            adj[idx[j]] = min(1.0, run_min)
    for p, q in zip(pairs, adj):
        assert abs(float(p["p_adjusted"]) - q) <= 1e-12, p
        a_wins = int(p["a_only"]) > int(p["b_only"])
        want = "tied" if q > 0.05 else ("separated" if a_wins else "reversed")
        assert p["verdict"] == want, p
    # the generated rates 0.9 and 0.1 are far apart on ~45 shared items: m2 above m3
    top_vs_last = next(p for p in pairs if (p["row_a"], p["row_b"]) == ("demo/m2", "demo/m3"))
    assert top_vs_last["verdict"] == "separated"
    verdicts = {(p["row_a"], p["row_b"]): p["verdict"] for p in pairs}
    for r, row in enumerate(rows):
        group = [s for s in order if s == row["row_id"] or "tied" in (
            verdicts.get((row["row_id"], s)), verdicts.get((s, row["row_id"])))]  # fmt: skip
        assert row["tie_group"] == "; ".join(group)
        assert row["next_verdict"] == (verdicts[(order[r], order[r + 1])] if r < 3 else "")
        assert int(row["items"]) == len(outcomes[row["row_id"]])
        assert int(row["passes"]) == sum(outcomes[row["row_id"]].values())
    print("top row's tie group:", rows[0]["tie_group"])

    # bootstrap: items in the order of their written keys (group, instance_id): the
    # group is alpha throughout, so by instance id as text
    items = sorted({u for out in outcomes.values() for u in out})
    per_row = _bootstrap([outcomes[r] for r in order], items, 5, 0, 60)
    cut = int(60 * 0.05 / 2) + 1  # 2
    for row, ranks in zip(rows, per_row):
        ranks.sort()
        assert (int(row["rank_lo"]), int(row["rank_hi"])) == (ranks[cut - 1], ranks[-cut]), row


def test_undeclared_ranks_writes_no_rank_files(demo_bundle: Path, tmp_path: Path) -> None:
    """An arm without `ranks` keeps its bytes: neither file is written."""
    got = _run_both(ROOT / "prereg" / "demo.yaml", demo_bundle, tmp_path / "out")
    for impl in IMPLS:
        assert "ranks.csv" not in got[impl] and "rank_pairs.csv" not in got[impl]


@pytest.mark.parametrize(
    "ranks",
    [
        {"columns": ["average_cost"], "alpha": 0.05, "correction": "holm", "seed": 1, "draws": 5},
        {"columns": ["alpha_score"], "alpha": 0.05, "correction": "bonf", "seed": 1, "draws": 5},
        {"columns": ["alpha_score"], "alpha": 1.5, "correction": "holm", "seed": 1, "draws": 5},
        {
            "columns": ["alpha_score"],
            "alpha": float("nan"),
            "correction": "holm",
            "seed": 1,
            "draws": 5,
        },
        {"columns": [["alpha_score"]], "alpha": 0.05, "correction": "holm", "seed": 1, "draws": 5},
        None,
    ],
)
def test_bad_ranks_refused(demo_bundle: Path, tmp_path: Path, ranks: dict) -> None:
    """A mean_of_columns column, an unknown correction, alpha outside (0, 1) or NaN, a column name that
    is not a string, ranks: null: bad_prereg from both, nothing written."""
    prereg = _prereg(tmp_path, ranks)
    for impl in IMPLS:
        dst = tmp_path / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(demo_bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 2, (impl, res.stderr)
        assert res.stderr.startswith("error[bad_prereg]: "), (impl, res.stderr)
        assert not dst.exists() or not any(dst.iterdir())


def test_ranks_on_a_sum_column_refused(demo_bundle: Path, tmp_path: Path) -> None:
    """docs/contract.md, Ranks: a sum column is not ranked (bad_prereg). alpha_cost made a
    sum and ranked: both contestants read the sum as a mean and ranked it before; now
    each refuses it naming the column, nothing written."""
    prereg = _prereg(tmp_path, {"columns": ["alpha_cost"], "alpha": 0.05, "correction": "holm",
                                "seed": 1, "draws": 5})  # fmt: skip
    doc = yaml.safe_load(prereg.read_text(encoding="utf-8"))
    assert doc["columns"]["measured"]["alpha_cost"]["recipe"] == "mean"
    doc["columns"]["measured"]["alpha_cost"]["recipe"] = "sum"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    for impl in IMPLS:
        dst = tmp_path / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(demo_bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 2, (impl, res.stderr)
        assert res.stderr.startswith(f"error[bad_prereg]: {prereg}: ranks"), (impl, res.stderr)
        assert "'alpha_cost' is not a measured rate or mean column" in res.stderr
        assert not dst.exists() or not any(dst.iterdir())


def test_reordered_instance_rows_change_nothing(demo_bundle: Path, tmp_path: Path) -> None:
    """The instance table's rows reversed: both rank files byte for byte as before (items
    are ordered by their written keys, never by file position)."""
    _bundle(demo_bundle, tmp_path / "bundle")
    back = tmp_path / "reversed"
    back.mkdir()
    (back / "leaderboard.parquet").write_bytes(
        (tmp_path / "bundle" / "leaderboard.parquet").read_bytes()
    )
    pl.read_parquet(tmp_path / "bundle" / "instances.parquet").reverse().write_parquet(
        back / "instances.parquet"
    )
    spec = {"columns": ["alpha_score", "beta_score"], "alpha": 0.1, "correction": "bh",
            "seed": 3, "draws": 40}  # fmt: skip
    prereg = _prereg(tmp_path, spec)
    first = _run_both(prereg, tmp_path / "bundle", tmp_path / "one")
    again = _run_both(prereg, back, tmp_path / "two")
    for impl in IMPLS:
        for name in ("ranks.csv", "rank_pairs.csv"):
            assert first[impl][name] == again[impl][name], (impl, name)
    assert first["pandas"]["ranks.csv"] == first["pyarrow"]["ranks.csv"]
