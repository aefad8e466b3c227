"""The rank census on the real bundle, declared in a test-only copy of its prereg (the
shipped prereg, whose hash is pinned, is not changed): the five category score columns,
alpha 0.05, Holm, 200 draws, seed 11. Slow (both contestants on 34 rows x 5 columns).

Checked by independent methods: each pair's shared and discordant counts from the
instance table read with polars here; every p-value against scipy's binomial test;
Holm by its textbook step-down in floats; the first column's rank intervals by a
separate recompute of the contract's bootstrap (tests/test_ranks.py's helper). The top
row's tie group of each column is printed.
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import binomtest

from tests.conftest import ROOT, impl_python, run
from tests.test_ranks import _bootstrap

COLUMNS = {
    "issue_resolution_score": "Issue Resolution",
    "frontend_score": "Frontend",
    "greenfield_score": "Greenfield",
    "testing_score": "Testing",
    "information_gathering_score": "Information Gathering",
}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_rank_census_on_the_real_bundle(real_bundle: Path, tmp_path: Path) -> None:
    text = (ROOT / "prereg" / "openhands-index.yaml").read_text(encoding="utf-8")
    assert text.count("\nseed:") == 1
    declared = (
        f"\nranks: {{columns: [{', '.join(COLUMNS)}], alpha: 0.05, correction: holm, "
        "seed: 11, draws: 200}\nseed:"
    )
    prereg = tmp_path / "openhands-index-ranks.yaml"
    prereg.write_text(text.replace("\nseed:", declared), encoding="utf-8")
    got = {}
    for impl in ("pandas", "pyarrow"):
        dst = tmp_path / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(real_bundle), "--out", str(dst), "--no-draws"],
            timeout=1200,
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        got[impl] = {n: (dst / n).read_bytes() for n in ("ranks.csv", "rank_pairs.csv")}
    assert got["pandas"] == got["pyarrow"]
    pairs = _rows(tmp_path / "pyarrow" / "rank_pairs.csv")
    rows = _rows(tmp_path / "pyarrow" / "ranks.csv")

    board = pl.read_parquet(real_bundle / "test.parquet")
    inst = pl.read_parquet(real_bundle / "instances.parquet").filter(
        pl.col("resolved").is_not_null()
    )
    for c_index, (name, category) in enumerate(COLUMNS.items()):
        ranked = board.filter(pl.col(name).is_not_null() & pl.col(name).is_not_nan())
        order = ranked.sort([name, "id"], descending=[True, False])["id"].to_list()
        mine = [r for r in rows if r["column"] == name]
        assert [r["row_id"] for r in mine] == order
        part = inst.filter(pl.col("category") == category)
        outcomes: dict[str, dict[tuple[str, str], bool]] = {rid: {} for rid in order}
        items: dict[tuple[str, str], None] = {}
        for rid, bench, iid, ok in part.select("id", "benchmark", "instance_id", "resolved").rows():
            if rid in outcomes:
                outcomes[rid][(bench, iid)] = ok
                items.setdefault((bench, iid), None)
        col_pairs = [p for p in pairs if p["column"] == name]
        assert len(col_pairs) == len(order) * (len(order) - 1) // 2
        ps = []
        for p in col_pairs:
            oa, ob = outcomes[p["row_a"]], outcomes[p["row_b"]]
            shared = oa.keys() & ob.keys()
            a_only = sum(1 for u in shared if oa[u] and not ob[u])
            b_only = sum(1 for u in shared if ob[u] and not oa[u])
            assert (int(p["shared"]), int(p["a_only"]), int(p["b_only"])) == (
                len(shared), a_only, b_only,
            )  # fmt: skip
            d = a_only + b_only
            expected = binomtest(min(a_only, b_only), d, 0.5).pvalue if d else 1.0
            assert abs(float(p["p"]) - expected) <= 1e-12, p
            ps.append(expected)
        m = len(ps)
        idx = sorted(range(m), key=lambda i: ps[i])
        run_max = 0.0
        for j, i in enumerate(idx):
            run_max = max(run_max, min(1.0, (m - j) * ps[i]))
            assert abs(float(col_pairs[i]["p_adjusted"]) - run_max) <= 1e-12
        print(f"{name}: top row's tie group: {mine[0]['tie_group']}")
        if c_index == 0:  # the bootstrap recomputed for the first column
            # items by their written keys (benchmark, instance_id), both strings
            per_row = _bootstrap([outcomes[r] for r in order], sorted(items), 11, 0, 200)
            cut = int(200 * 0.05 / 2) + 1  # 6
            for row, ranks in zip(mine, per_row):
                ranks.sort()
                assert (int(row["rank_lo"]), int(row["rank_hi"])) == (ranks[cut - 1], ranks[-cut])


@pytest.mark.slow
def test_graded_rank_census_on_the_real_costs(real_bundle: Path, tmp_path: Path) -> None:
    """The sign-flip test on a real mean column (issue_resolution_cost: 34 rows, 500 items,
    costs with long binary fractions, some null): both contestants byte-identical; every
    pair's counts from polars; the p of the published top row's pairs by a separate
    recompute of the labelled blake3 draws on exact integers (each cost's
    as_integer_ratio over one power of two); the top row's tie group printed."""
    from blake3 import blake3

    text = (ROOT / "prereg" / "openhands-index.yaml").read_text(encoding="utf-8")
    name, draws = "issue_resolution_cost", 200
    prereg = tmp_path / "openhands-index-cost-ranks.yaml"
    prereg.write_text(
        text.replace(
            "\nseed:",
            f"\nranks: {{columns: [{name}], alpha: 0.05, correction: bh, seed: 5, "
            f"draws: {draws}}}\nseed:",
        ),
        encoding="utf-8",
    )
    got = {}
    for impl in ("pandas", "pyarrow"):
        dst = tmp_path / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(real_bundle), "--out", str(dst), "--no-draws"],
            timeout=1200,
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        got[impl] = {n: (dst / n).read_bytes() for n in ("ranks.csv", "rank_pairs.csv")}
    assert got["pandas"] == got["pyarrow"]
    pairs = _rows(tmp_path / "pyarrow" / "rank_pairs.csv")
    rows = _rows(tmp_path / "pyarrow" / "ranks.csv")
    inst = pl.read_parquet(real_bundle / "instances.parquet").filter(
        (pl.col("category") == "Issue Resolution")
        & pl.col("cost").is_not_null()
        & pl.col("cost").is_not_nan()
    )
    costs: dict[str, dict[tuple[str, str], float]] = {}
    for rid, bench, iid, cost in inst.select("id", "benchmark", "instance_id", "cost").rows():
        costs.setdefault(rid, {})[(bench, iid)] = cost
    order = [r["row_id"] for r in rows]
    items = sorted({u for rid in order for u in costs.get(rid, {})})
    den = max(v.as_integer_ratio()[1] for rid in order for v in costs.get(rid, {}).values())
    whole = {
        rid: {u: v.as_integer_ratio()[0] * (den // v.as_integer_ratio()[1]) for u, v in c.items()}
        for rid, c in costs.items()
    }
    flips = [
        [
            int.from_bytes(blake3(f"perm:5|{name}|{d}|{j}".encode()).digest()[:8], "big") >= 2**63
            for j in range(len(items))
        ]
        for d in range(draws)
    ]
    for p in pairs:
        xa, xb = whole.get(p["row_a"], {}), whole.get(p["row_b"], {})
        shared = [(j, xa[u] - xb[u]) for j, u in enumerate(items) if u in xa and u in xb]
        assert (int(p["shared"]), int(p["a_only"]), int(p["b_only"])) == (
            len(shared), sum(v > 0 for _, v in shared), sum(v < 0 for _, v in shared),
        )  # fmt: skip
        if p["row_a"] != order[0]:
            continue  # the top row's 33 pairs are recomputed in full
        t = sum(v for _, v in shared)
        hits = sum(abs(sum(-v if f[j] else v for j, v in shared)) >= abs(t) for f in flips)
        want = (1 + hits) / (1 + draws)
        assert abs(float(p["p"]) - want) <= 1e-12, (p, want)
    print(f"{name}: top row's tie group: {rows[0]['tie_group']}")
