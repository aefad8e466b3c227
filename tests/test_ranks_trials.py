"""The rank census of a trials arm (docs/trials-contract.md, section 17), declared in
test-only copies of the shipped preregs (the shipped ones, whose hashes are pinned, are
not changed): both trials contestants byte-identical on SkillsBench and Terminal-Bench.

Checked by independent methods written here: SkillsBench's per-task means under policy
S are score / 100 read from the registry with polars (one IEEE division, section 6.1),
Terminal-Bench's the exact k/n each six-decimal reward_mean of tasks.csv stands for (at
most 20 trials a task: the nearest fraction with a denominator up to 20 is the one);
the published order from the leaderboard; shared and greater-task counts by loops; every
p by a separate recompute of the labelled blake3 sign flips in Fractions; Holm; the
bootstrap by tests/test_ranks_graded.py's separate recompute. Each top row's tie group
is printed.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import blake3
import polars as pl
import pytest

from audit.core.agree import RANK_KEYS, TRIAL_KEYS
from audit.kinds.agreed import keys_for
from audit.kinds.arm_kind import TRIALS
from audit.ranks.record import TIE_MEANING
from tests.conftest import ROOT, impl_python, run, run_audit, run_dag
from tests.test_ranks_graded import _bootstrap

SHARED = ROOT.parent / "shared" / "bundles"
IMPLS = ("pandas", "pyarrow")


def _prereg(tmp: Path, shipped: str, ranks: str, name: str | None = None) -> Path:
    text = (ROOT / "prereg" / f"{shipped}.yaml").read_text(encoding="utf-8")
    assert text.count("\nseed:") == 1
    text = text.replace("\nseed:", f"\nranks: {ranks}\nseed:")
    if name:
        text = text.replace(f"name: {shipped}\n", f"name: {name}\n", 1)
    path = tmp / f"{name or shipped}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _run_both(prereg: Path, bundle: Path, tmp: Path) -> dict[str, Path]:
    out = {}
    for impl in IMPLS:
        dst = tmp / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        out[impl] = dst
    for name in ("ranks.csv", "rank_pairs.csv"):
        assert (out["pandas"] / name).read_bytes() == (out["pyarrow"] / name).read_bytes()
    return out


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _check(out: Path, column: str, order: list[str], x: dict[str, dict[str, Fraction]],
           seed: int, draws: int, alpha: Fraction) -> None:  # fmt: skip
    """Every figure of one column against the recompute written here (Holm)."""
    rows = [r for r in _rows(out / "ranks.csv") if r["column"] == column]
    pairs = [p for p in _rows(out / "rank_pairs.csv") if p["column"] == column]
    assert [r["row_id"] for r in rows] == order
    items = sorted({t for m in x.values() for t in m})
    flips = [
        [
            int.from_bytes(
                blake3.blake3(f"perm:{seed}|{column}|{d}|{j}".encode()).digest()[:8], "big"
            )
            >= 2**63
            for j in range(len(items))
        ]
        for d in range(draws)
    ]
    ps, totals = [], []
    for p in pairs:
        xa, xb = x[p["row_a"]], x[p["row_b"]]
        shared = [(j, xa[t] - xb[t]) for j, t in enumerate(items) if t in xa and t in xb]
        assert (int(p["shared"]), int(p["a_only"]), int(p["b_only"])) == (
            len(shared), sum(v > 0 for _, v in shared), sum(v < 0 for _, v in shared),
        )  # fmt: skip
        t = sum(v for _, v in shared)
        hits = sum(abs(sum(-v if f[j] else v for j, v in shared)) >= abs(t) for f in flips)
        want = Fraction(1 + hits, 1 + draws)
        assert abs(Fraction(p["p"]) - want) <= Fraction(1, 2 * 10**12), (p, want)
        ps.append(want)
        totals.append(t)
    m = len(ps)
    running, adj = Fraction(0), [Fraction(0)] * m
    for j, i in enumerate(sorted(range(m), key=ps.__getitem__)):
        running = max(running, min(Fraction(1), (m - j) * ps[i]))
        adj[i] = running
    for p, q, t in zip(pairs, adj, totals):
        assert abs(Fraction(p["p_adjusted"]) - q) <= Fraction(1, 2 * 10**12), p
        assert p["verdict"] == ("tied" if q > alpha else "separated" if t > 0 else "reversed")
    per_row = _bootstrap([x[r] for r in order], items, seed, draws)
    cut = int(draws * alpha / 2) + 1
    for row, ranks in zip(rows, per_row):
        ranks.sort()
        assert (int(row["rank_lo"]), int(row["rank_hi"])) == (ranks[cut - 1], ranks[-cut]), row
        assert row["passes"] == "" and int(row["items"]) == len(x[row["row_id"]])
    print(f"{column}: the top row's tie group: {rows[0]['tie_group']}")


def test_skillsbench_ranks(impl_envs, tmp_path: Path) -> None:
    bundle = SHARED / "skillsbench-registry"
    if not (bundle / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    prereg = _prereg(
        tmp_path, "skillsbench-registry",
        "{columns: [score], policy: S, alpha: 0.05, correction: holm, seed: 4, draws: 400}",
    )  # fmt: skip
    out = _run_both(prereg, bundle, tmp_path)
    reg = pl.read_parquet(bundle / "registry.parquet")
    x: dict[str, dict[str, Fraction]] = {}
    for model, condition, task, score in reg.select("model", "condition", "task", "score").rows():
        x.setdefault(f"{model}|{condition}", {})[task] = Fraction(score / 100)
    board = pl.read_parquet(bundle / "leaderboard.parquet").with_columns(
        (pl.col("model") + "|" + pl.col("condition")).alias("rid")
    )
    order = board.sort(["score", "rid"], descending=[True, False])["rid"].to_list()
    _check(out["pyarrow"], "score", order, {r: x.get(r, {}) for r in order}, 4, 400,
           Fraction(1, 20))  # fmt: skip


def test_terminal_bench_ranks(impl_envs, tmp_path: Path) -> None:
    src = SHARED / "terminal-bench-sample"
    if not (src / "leaderboard.csv").is_file():
        pytest.skip("Terminal-Bench bundle not present")
    bundle = tmp_path / "bundle"
    res = run_audit(
        "adapt-trials", "--jobs", src / "results", "--format", "tb-run-v1", "--duplicates",
        "once", "--min-tries", "5", "--out", bundle,
    )  # fmt: skip
    assert res.code == 0, res.stderr
    (bundle / "leaderboard.csv").write_bytes((src / "leaderboard.csv").read_bytes())
    prereg = _prereg(
        tmp_path, "terminal-bench-sample",
        "{columns: [accuracy], policy: attempted, alpha: 0.05, correction: holm, seed: 2, "
        "draws: 300}",
    )  # fmt: skip
    out = _run_both(prereg, bundle, tmp_path)
    x: dict[str, dict[str, Fraction]] = {}
    for t in _rows(out["pandas"] / "tasks.csv"):
        if t["policy"] == "attempted" and t["reward_mean"]:
            k_over_n = Fraction(t["reward_mean"]).limit_denominator(20)
            assert abs(k_over_n - Fraction(t["reward_mean"])) < Fraction(1, 10**6)
            x.setdefault(t["entry"], {})[t["task"]] = Fraction(float(k_over_n))
    with (src / "leaderboard.csv").open(newline="", encoding="utf-8") as f:
        board = [(Fraction(r["accuracy"]), r["submission"]) for r in csv.DictReader(f)]
    order = [rid for _, rid in sorted(board, key=lambda p: (-p[0], p[1]))]
    _check(out["pyarrow"], "accuracy", order, {r: x.get(r, {}) for r in order}, 2, 300,
           Fraction(1, 20))  # fmt: skip


@pytest.mark.parametrize(
    "ranks, detail",
    [
        ("{columns: [ci95], policy: S, alpha: 0.05, correction: holm, seed: 1, draws: 5}",
         "ci95"),
        ("{columns: [score], policy: Z, alpha: 0.05, correction: holm, seed: 1, draws: 5}",
         "Z"),
        ("{columns: [score], policy: S, alpha: 0.05, correction: bonf, seed: 1, draws: 5}",
         "correction"),
        ("{columns: [score], alpha: 0.05, correction: holm, seed: 1, draws: 5}", "policy"),
    ],
)  # fmt: skip
def test_bad_trials_ranks_refused(impl_envs, tmp_path: Path, ranks: str, detail: str) -> None:
    """A column whose measure is not reward_macro, an unknown policy, an unknown
    correction, no policy: bad_prereg from both trials contestants, nothing written."""
    bundle = SHARED / "skillsbench-registry"
    if not (bundle / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    prereg = _prereg(tmp_path, "skillsbench-registry", ranks)
    for impl in IMPLS:
        dst = tmp_path / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 2, (impl, res.stderr)
        assert res.stderr.startswith("error[bad_prereg]: ") and detail in res.stderr, res.stderr
        assert not dst.exists() or not any(dst.iterdir())


def test_keys_for_a_trials_arm(tmp_path: Path) -> None:
    shipped = ROOT / "prereg" / "skillsbench-registry.yaml"
    assert keys_for(TRIALS, str(shipped)) == TRIAL_KEYS
    declared = _prereg(tmp_path, "skillsbench-registry", "{columns: [score], policy: S, "
                       "alpha: 0.05, correction: holm, seed: 1, draws: 5}")  # fmt: skip
    assert keys_for(TRIALS, str(declared)) == {**TRIAL_KEYS, **RANK_KEYS}


@pytest.mark.slow
def test_skillsbench_arm_with_ranks_end_to_end(tmp_path: Path) -> None:
    """Through the whole DAG: agreement compares both rank files, the report (with
    ranks.svg) and the certificate hold the rank section, controls pass, verify passes."""
    bundle = SHARED / "skillsbench-registry"
    if not (bundle / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    prereg = _prereg(
        tmp_path, "skillsbench-registry",
        "{columns: [score], policy: E, alpha: 0.05, correction: holm, seed: 11, draws: 300}",
        name="skillsbench-ranks",
    )  # fmt: skip
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    res = run_dag(
        tmp_path, "--config", "arm=skillsbench-ranks", f"prereg={prereg}",
        f"prereg_blake3={digest}", f"bundle={bundle}",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    arm = tmp_path / "results" / "skillsbench-ranks"
    agreement = json.loads((arm / "agreement.json").read_text())
    assert agreement["disagreements"] == 0
    files = [f["file"] for f in agreement["files"]]
    assert "ranks.csv" in files and "rank_pairs.csv" in files
    cert = (arm / "annex" / "certificate.md").read_text(encoding="utf-8")
    assert "## Ranks" in cert and "per-task means under policy E" in cert
    report = (arm / "report" / "report.md").read_text(encoding="utf-8")
    assert "Ranks: does the data support the published order?" in report
    assert TIE_MEANING in report and TIE_MEANING in cert
    assert "score: blue, the top row" in (arm / "report" / "ranks.svg").read_text()
    assert ",fail," not in (arm / "controls.csv").read_text(encoding="utf-8")
    head = (arm / "annex" / "ledger.jsonl").read_text().splitlines()[-1]
    verified = run_audit("verify", arm / "annex", "--head", json.loads(head)["hash"])
    assert verified.code == 0, verified.stdout + verified.stderr
