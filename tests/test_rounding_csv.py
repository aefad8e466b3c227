"""Rounding rules per measured column, CSV leaderboards with declared types, run-level
measures judged as measured cells (docs/trials-contract.md sections 4.3, 8.1, 16.5).

Every expected value is worked out by hand in the comments: the doubles' exact values
are those Python's decimal.Decimal(float) prints (0.1275 is stored as
0.12750000000000000222..., just above the tie; 0.125 = 1/8 is an exact binary tie)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from audit.bundles.digest import table_digest
from audit.errors import AuditError
from tests.conftest import ROOT, impl_python, read_csv_rows, run, run_audit
from tests.test_tb_runs import _adapt, _run_file, _t

# (value, value kind, decimals, {rule: expected}) worked by hand.
ROUNDING_CASES = [
    # 0.125 = 1/8 exactly: a true tie at 2 decimals. Even neighbour 0.12; away from
    # zero 0.13; toward zero 0.12.
    ("0.125", "float", 2, {"half_even": "0.12", "half_up": "0.13", "down": "0.12"}),
    ("-0.125", "float", 2, {"half_even": "-0.12", "half_up": "-0.13", "down": "-0.12"}),
    # 0.375 = 3/8: a tie whose lower neighbour 0.37 is odd, so half_even goes up too.
    ("0.375", "float", 2, {"half_even": "0.38", "half_up": "0.38", "down": "0.37"}),
    # the double 0.1275 is 0.1275000000000000022...: above the tie, so both half rules
    # give 0.128; truncation 0.127.
    ("0.1275", "float", 3, {"half_even": "0.128", "half_up": "0.128", "down": "0.127"}),
    # the double 0.1245 is 0.12449999999999999955...: below the tie, so half_up gives
    # 0.124, although the decimal text 0.1245 would round up to 0.125.
    ("0.1245", "float", 3, {"half_even": "0.124", "half_up": "0.124", "down": "0.124"}),
    # ... and the decimal text itself (exact) is a tie: 0.124 (even), 0.125 (up).
    ("0.1245", "decimal", 3, {"half_even": "0.124", "half_up": "0.125", "down": "0.124"}),
    # the double 0.4125 is 0.41249999999999997...: truncated to 4 decimals it is 0.4124.
    ("0.4125", "float", 4, {"half_even": "0.4125", "half_up": "0.4125", "down": "0.4124"}),
    # the decimal 0.4125 (a published text, exact) is a tie at 3 decimals: 0.412 (even),
    # 0.413 (up), 0.412 (down).
    ("0.4125", "decimal", 3, {"half_even": "0.412", "half_up": "0.413", "down": "0.412"}),
    # 2.5 and -2.5 at 0 decimals; -0.7 toward zero is 0, to the nearest -1.
    ("2.5", "decimal", 0, {"half_even": "2", "half_up": "3", "down": "2"}),
    ("-2.5", "decimal", 0, {"half_even": "-2", "half_up": "-3", "down": "-2"}),
    ("-0.7", "decimal", 0, {"half_even": "-1", "half_up": "-1", "down": "0"}),
]

# Each contestant's own rounding function, run in its own environment; prints the
# results as exact rationals so that the two APIs (Decimal; integer grid count) compare.
SNIPPETS = {
    "pandas": (
        "import json, sys\n"
        "from fractions import Fraction\n"
        "from impl_pandas.trials.rounding import rounded, exact_text\n"
        "cases = json.loads(sys.argv[1])\n"
        "out = [str(Fraction(rounded(float(v) if k == 'float' else Fraction(v), d, r)))"
        " for v, k, d, r in cases['round']]\n"
        "texts = [exact_text(float(v)) for v in cases['exact']]\n"
        "print(json.dumps([out, texts]))\n"
    ),
    "pyarrow": (
        "import json, sys\n"
        "from fractions import Fraction\n"
        "from impl_pyarrow.trials.grid import to_grid, binary_digits\n"
        "cases = json.loads(sys.argv[1])\n"
        "out = [str(Fraction(to_grid(Fraction(float(v)) if k == 'float' else Fraction(v),"
        " d, r), 10 ** d)) for v, k, d, r in cases['round']]\n"
        "texts = [binary_digits(float(v)) for v in cases['exact']]\n"
        "print(json.dumps([out, texts]))\n"
    ),
}

# The exact binary values (Decimal(float) text, positional; -0 written 0).
EXACT = {
    "0.125": "0.125",
    "0.1275": "0.127500000000000002220446049250313080847263336181640625",
    "0.4125": "0.41249999999999997779553950749686919152736663818359375",
    "-0.0": "0",
    "1.0": "1",
    "-2.5": "-2.5",
    "0.25": "0.25",
}


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_rounding_rules_by_hand(impl: str, impl_envs) -> None:
    flat = [(v, k, d, r) for v, k, d, exp in ROUNDING_CASES for r in exp]
    payload = json.dumps({"round": flat, "exact": list(EXACT)})
    res = run([str(impl_python(impl)), "-c", SNIPPETS[impl], payload])
    assert res.code == 0, res.stderr
    got, texts = json.loads(res.stdout)
    want = [str(Fraction(exp[r])) for _, _, _, exp in ROUNDING_CASES for r in exp]
    assert got == want
    assert texts == list(EXACT.values())


PREREG = """\
version: 1
kind: trials
name: csv-board
source: {kind: trials, format: tb-run-v1, jobs: results, table: trials.parquet,
         duplicates: once, min_tries: 5}
leaderboard:
  table: leaderboard.csv
  row_key: [submission]
  types: {submission: string, accuracy: decimal, stderr: decimal, note: string}
  columns:
    structural: [submission]
    no_antecedent: [note]
    measured:
      accuracy:
        measure: run_mean
        policies: [attempted]
        rounding: [half_even, half_up, down]
        tolerance: printed
        row_tolerances: {}
      stderr:
        measure: [se_runs_sample, se_runs_population]
        policies: [attempted]
        rounding: [half_even, down]
        tolerance: printed
        row_tolerances: {}
policies: {}
scale: 1
rounding: half_even
tolerances:
  printed: {exact_decimals: published, tiers: [0.01]}
seed: 1
bootstrap_draws: 4
null_draws: 4
controls: {}
compare: null
runs: {unit: tb_run, pass_k: [1]}
disclosure: {auditor: the tests, relations: [], publication: not published}
"""

BOARD = 'submission,accuracy,stderr,note\r\ne1,0.13,,x\r\ne2,0.75,0.2,"quoted, text"\r\n'


@pytest.fixture
def csv_bundle(tmp_path: Path) -> Path:
    """e1: one run of 8 tasks, one resolved (rate 1/8 = 0.125, an exact binary tie at the
    published 2 decimals); e2: runs s1 (a resolved, b not: 0.5) and s2 (both: 1.0)."""
    jobs = tmp_path / "results"
    trials = [_t(f"t{i}", i == 1, f"x{i}") for i in range(1, 9)]
    _run_file(jobs / "e1" / "r1" / "results.json", trials, 0.125, 1)
    _run_file(jobs / "e2" / "s1_results.json", [_t("a", True, "y1"), _t("b", False, "y2")], 0.5, 1)
    _run_file(jobs / "e2" / "s2_results.json", [_t("a", True, "z1"), _t("b", True, "z2")], 1.0, 2)
    out = tmp_path / "bundle"
    res = _adapt(jobs, out)
    assert res.code == 0, res.stderr
    (out / "leaderboard.csv").write_bytes(BOARD.encode())
    return out


def _contestant(impl: str, tmp: Path, bundle: Path, prereg: str):
    (tmp / "p.yaml").write_text(prereg)
    return run(
        [
            str(impl_python(impl)),
            "-m",
            f"impl_{impl}.trials",
            "--prereg",
            str(tmp / "p.yaml"),
            "--bundle",
            str(bundle),
            "--out",
            str(tmp / impl),
        ]
    )


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_csv_leaderboard_judged_by_rules(
    impl: str, impl_envs, csv_bundle: Path, tmp_path: Path
) -> None:
    res = _contestant(impl, tmp_path, csv_bundle, PREREG)
    assert res.code == 0, res.stderr
    cells = {
        (r["row_id"], r["column"], r["policy"]): r
        for r in read_csv_rows(tmp_path / impl / "cells.csv")
    }

    def cell(row: str, col: str, rule: str) -> tuple[str, str, str, str]:
        c = cells[(row, col, rule)]
        return c["published"], c["recomputed"], c["abs_diff"], c["tier"]

    # e1 accuracy: P = 0.13 (its own 2 decimals), R = 0.125 exactly. half_even: 0.12,
    # |P - R| = 0.005 <= 0.01 -> tier 1; half_up: 0.13 -> tier 0; down: 0.12 -> tier 1.
    # R is a tie at 2 decimals, so the half rules print its exact value "0.125"; for
    # down the switch points are multiples of 0.01, and 0.125 is none: six decimals.
    assert cell("e1", "accuracy", "attempted/half_even") == ("0.13", "0.125", "0.005000", "1")
    assert cell("e1", "accuracy", "attempted/half_up") == ("0.13", "0.125", "0.005000", "0")
    assert cell("e1", "accuracy", "attempted/down") == ("0.13", "0.125000", "0.005000", "1")
    # e1 stderr: an empty field is null, not published; one run gives no SE anyway.
    assert cell("e1", "stderr", "attempted/se_runs_sample/down") == ("", "", "", "not_published")
    # e2 accuracy: R = mean(0.5, 1.0) = 0.75, on the 2-decimal grid: tier 0 under all
    # three; for down 0.75 is a switch point (a multiple of 0.01): exact "0.75".
    assert cell("e2", "accuracy", "attempted/half_even") == ("0.75", "0.750000", "0.000000", "0")
    assert cell("e2", "accuracy", "attempted/down") == ("0.75", "0.75", "0.000000", "0")
    # e2 stderr, P = 0.2 (1 decimal). Sample: V = ((0.5-0.75)^2 + (1-0.75)^2)/1 = 0.125,
    # sqrt(V/2) = 0.25 exactly, a tie at 1 decimal: half_even 0.2 -> tier 0 (exact text),
    # down 0.2 -> tier 0. Population: sqrt(0.125/2/2) = 0.176777: half_even 0.2 -> tier 0;
    # down 0.1, |0.2 - 0.176777| = 0.023223 > 0.01 -> divergent.
    assert cell("e2", "stderr", "attempted/se_runs_sample/half_even") == (
        "0.2",
        "0.25",
        "0.050000",
        "0",
    )
    assert cell("e2", "stderr", "attempted/se_runs_sample/down")[1:] == (
        "0.250000",
        "0.050000",
        "0",
    )
    assert cell("e2", "stderr", "attempted/se_runs_population/half_even")[3] == "0"
    assert cell("e2", "stderr", "attempted/se_runs_population/down")[1:] == (
        "0.176777",
        "0.023223",
        "divergent",
    )
    assert cells[("e2", "note", "-")]["published"] == "quoted, text"
    recovery = {
        (r["row_id"], r["column"]): r for r in read_csv_rows(tmp_path / impl / "recovery.csv")
    }
    # sorted by (tier, rule name): tier 0 half_up; tier 1 down, half_even
    assert recovery[("e1", "accuracy")]["reproducing"] == (
        "attempted/half_up:0;attempted/down:1;attempted/half_even:1"
    )
    assert recovery[("e1", "accuracy")]["best_policies"] == "attempted/half_up"
    assert recovery[("e1", "stderr")]["class"] == "not_published"
    assert recovery[("e2", "stderr")]["reproducing"] == (
        "attempted/se_runs_population/half_even:0;attempted/se_runs_sample/down:0;"
        "attempted/se_runs_sample/half_even:0"
    )


BAD = [
    # a .csv leaderboard without declared types: nothing is guessed
    (
        "prereg",
        PREREG.replace(
            "  types: {submission: string, accuracy: decimal, stderr: decimal, note: string}\n", ""
        ),
        None,
        "bad_prereg",
    ),
    # a run measure without the runs block
    ("prereg", PREREG.replace("runs: {unit: tb_run, pass_k: [1]}\n", ""), None, "bad_prereg"),
    # the published grid on a column typed string
    ("prereg", PREREG.replace("accuracy: decimal", "accuracy: string"), None, "bad_prereg"),
    # a field that is not of its declared type
    ("board", PREREG, BOARD.replace("0.13", "0.1x"), "bad_type"),
    # a byte-order mark, a short row
    ("board", PREREG, "\ufeff" + BOARD, "unreadable"),
    ("board", PREREG, BOARD.replace("e1,0.13,,x", "e1,0.13,"), "unreadable"),
    # a header column the prereg does not classify
    ("board", PREREG, BOARD.replace("note", "notes"), "missing_column"),
]


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
@pytest.mark.parametrize("case", range(len(BAD)))
def test_csv_leaderboard_refusals(
    impl: str, case: int, impl_envs, csv_bundle: Path, tmp_path: Path
) -> None:
    _, prereg, board, cls = BAD[case]
    if board is not None:
        (csv_bundle / "leaderboard.csv").write_bytes(board.encode())
    res = _contestant(impl, tmp_path, csv_bundle, prereg)
    assert res.code == 2 and res.stderr.startswith(f"error[{cls}]: "), res.stderr
    assert not (tmp_path / impl).exists() or not any((tmp_path / impl).iterdir())


TYPES = {"submission": "string", "accuracy": "decimal", "n": "integer", "ok": "boolean"}


def test_referee_csv_digest(tmp_path: Path) -> None:
    """The lock's content digest reads a CSV under its declared types: quoting and line
    endings do not change it; a decimal's printed digits do (0.40 is not 0.4)."""
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    a.write_bytes(b"submission,accuracy,n,ok\nx,0.40,3,true\ny,,4,false\n")
    b.write_bytes(b'"submission",accuracy,"n",ok\r\n"x",0.40,3,true\r\ny,"",4,false\r\n')
    c.write_bytes(b"submission,accuracy,n,ok\nx,0.4,3,true\ny,,4,false\n")
    da, db, dc = (table_digest(p, TYPES) for p in (a, b, c))
    assert da == db and da["rows"] == 2 and da["columns"] == 4
    assert dc["content_digest"] != da["content_digest"]
    c.write_bytes(b"submission,accuracy,n,ok\nx,0.4,3.0,true\n")
    with pytest.raises(AuditError) as err:
        table_digest(c, TYPES)
    assert err.value.kind == "bad_type"


def _tier0(reproducing: str) -> set[str]:
    return {item.rsplit(":", 1)[0] for item in reproducing.split(";") if item.endswith(":0")}


@pytest.mark.slow
@pytest.mark.realbundle
def test_terminal_bench_arm_end_to_end(arm_run) -> None:
    """The Terminal-Bench arm against its four published rows (leaderboard.csv).

    The hand values start from what each tb run recorded itself (its results list,
    counted by tests/reference/tb_counts.py, run below): resolved trials per run of 80 tasks, a null
    is_resolved counting 0 (policy attempted):
      OpenHands 32, 33, 35, 32, 33; Mini SWE-Agent 11, 9, 12, 13, 6 (the nested copy of
      the 13 read once); Goose 39, 36, 39, 34, 33; Orchestrator one run of 400 trials,
      144 resolved, 29 null. Published accuracy / stderr: 0.4125 / 0.00685,
      0.128 / 0.0016, 0.4525 / 0.015, 0.3696 / 0.02; tiers [0.001, 0.01] on each text's
      own decimals."""
    import statistics

    res = arm_run("terminal-bench-sample", "terminal-bench-sample")  # once per session
    assert json.loads((res / "agreement.json").read_text())["disagreements"] == 0
    summary = json.loads((res / "census.json").read_text())
    # 4 rows x (7 table columns + 3 declared published: false); submission, agent, model
    # structural; date, verified no antecedent; pass_at_1, pass_at_5, pass_hat_5 not
    # published (section 16.5)
    assert summary["classes"] == {
        "structural": 12,
        "no_antecedent": 8,
        "reproduced": 7,
        "divergent": 1,
        "no_data": 0,
        "not_published": 12,
    }
    assert summary["unpublished_columns"] == ["pass_at_1", "pass_at_5", "pass_hat_5"]
    _check_pass_k(res)
    census = {(r["row_id"], r["column"]): r for r in read_csv_rows(res / "census_cells.csv")}
    rec = {(r["row_id"], r["column"]): r for r in read_csv_rows(res / "recovery.csv")}

    def se(counts: list[int]) -> float:  # sample SD of the run rates / sqrt(runs)
        return statistics.stdev([Fraction(c, 80) for c in counts]) / len(counts) ** 0.5

    oh, mini, goose = (
        "20250711_openhands_claude-4-sonnet",
        "20250825_swe-agent-mini_claude-4-sonnet",
        "20250829_goose_claude-4-opus",
    )
    orch = "20250902_orchestrator_claude-4-sonnet"
    # the counts above, from the runs' own records (tests/reference/tb_counts.py, which
    # reads the results.json files apart from the adapter)
    from tests.reference import tb_counts

    shipped = (ROOT / ".." / "shared" / "bundles" / "terminal-bench-sample" / "results").resolve()
    counted = {s: tb_counts.runs_of(shipped / s) for s in (oh, mini, goose, orch)}
    assert {s: [r.resolved for r in runs] for s, runs in counted.items()} == {
        oh: [32, 33, 35, 32, 33],
        mini: [11, 9, 12, 13, 6],
        goose: [39, 36, 39, 34, 33],
        orch: [144],
    }
    assert (counted[orch][0].trials, counted[orch][0].null) == (400, 29)
    assert all(r.trials == 80 for s in (oh, mini, goose) for r in counted[s])
    # OpenHands: mean 165/400 = 0.4125, whose double is 0.41249999999999997...: the half
    # rules print 0.4125 (tier 0), truncation 0.4124 (tier 1), for all three means.
    assert _tier0(rec[(oh, "accuracy")]["reproducing"]) == {
        f"attempted/{m}/{r}"
        for m in ("run_mean", "pooled_rate", "reward_macro")
        for r in ("half_even", "half_up")
    }
    # stderr: counts deviate -1, 0, 2, -1, 0 from 33: sqrt(6/4 / 80^2 / 5) = 0.0068465,
    # which rounds half to 0.00685 and truncates to 0.00684 (tier 1).
    assert round(se([32, 33, 35, 32, 33]), 7) == 0.0068465
    assert _tier0(rec[(oh, "stderr")]["reproducing"]) == {
        "attempted/se_runs_sample/half_even",
        "attempted/se_runs_sample/half_up",
    }
    # Mini SWE-Agent: 51/400 = 0.1275, a double just above the tie: 0.128 under both half
    # rules, 0.127 truncated (tier 1). Its stderr 0.0016 is met by no declared interval:
    # the nearest, the population SE over runs sqrt(30.8/5 / 80^2 / 5) = 0.013874, is
    # 0.012274 away (> 0.01).
    assert _tier0(rec[(mini, "accuracy")]["reproducing"]) == {
        f"attempted/{m}/{r}"
        for m in ("run_mean", "pooled_rate", "reward_macro")
        for r in ("half_even", "half_up")
    }
    assert census[(mini, "stderr")]["class"] == "divergent"
    assert census[(mini, "stderr")]["min_abs_diff"] == "0.012274"
    # Goose: 181/400 = 0.4525 (the double is 0.45250000000000001...: every rule prints
    # 0.4525). stderr: the sample SE over runs is 0.015512 (counts deviate 2.8, -0.2,
    # 2.8, -2.2, -3.2 from 36.2: sqrt(30.8/4 / 80^2 / 5)); truncated it is the published
    # 0.015, rounded 0.016. Over scored trials only (79, 79, 77 trials in three runs) the
    # same SE is 0.014981, which rounds to 0.015: two readings reproduce it.
    assert round(se([39, 36, 39, 34, 33]), 6) == 0.015512
    scored = [
        Fraction(39, 80),
        Fraction(36, 79),
        Fraction(39, 79),
        Fraction(34, 77),
        Fraction(33, 80),
    ]
    assert round(statistics.stdev(scored) / 5**0.5, 6) == 0.014981
    assert _tier0(rec[(goose, "stderr")]["reproducing"]) == {
        "attempted/se_runs_sample/down",
        "scored/se_runs_sample/half_even",
        "scored/se_runs_sample/half_up",
    }
    # Orchestrator: 144/400 = 0.36 against 0.3696: 0.0096 away, tier 2 only. stderr 0.02:
    # one run, so no SE over runs; the binomial SE sqrt(0.36 * 0.64 / 400) = 0.024 prints
    # 0.02 under every rule; over scored trials sqrt(p(1-p)/371), p = 144/371, = 0.025301
    # only truncates to 0.02.
    assert census[(orch, "accuracy")]["best_tier"] == "2"
    assert round(float(Fraction(144, 371) * Fraction(227, 371) / 371) ** 0.5, 6) == 0.025301
    assert _tier0(rec[(orch, "stderr")]["reproducing"]) == {
        "attempted/se_binomial_pooled/half_even",
        "attempted/se_binomial_pooled/half_up",
        "attempted/se_binomial_pooled/down",
        "scored/se_binomial_pooled/down",
    }
    assert run_audit("verify", res / "annex").code == 0


def _check_pass_k(res: Path) -> None:
    """pass@5 and pass^5 of every entry against a count from the trial table itself.

    With n = k = 5 the estimators reduce to counting: pass@5 = 1 - C(5-c,5)/C(5,5) is 1
    iff c > 0, pass^5 = C(c,5)/C(5,5) is 1 iff c = 5. So under attempted (a null
    is_resolved is a failed try; every entry has 5 copy-0 trials per task) pass@5 is the
    share of tasks with a resolved trial and pass^5 the share with 5 of 5; under scored
    only tasks with 5 non-null trials count. pass@1 = c/n averaged over tasks."""
    import polars as pl

    trials = pl.read_parquet(res / "bundle" / "trials.parquet").filter(pl.col("copy") == 0)
    cells = {
        (r["row_id"], r["column"], r["policy"]): r
        for r in read_csv_rows(res / "recompute" / "pyarrow" / "run1" / "cells.csv")
    }
    only = {
        (r["row_id"], r["column"], r["rule"]) for r in read_csv_rows(res / "recomputed_only.csv")
    }
    for policy in ("attempted", "scored"):
        t = trials if policy == "attempted" else trials.filter(pl.col("status") == "scored")
        per = t.group_by("run", "task").agg(n=pl.len(), c=(pl.col("reward") == 1.0).sum())
        for entry in trials["run"].unique().to_list():
            e = per.filter(pl.col("run") == entry)
            five = e.filter(pl.col("n") >= 5)
            assert five["n"].max() == 5
            at5 = Fraction(five.filter(pl.col("c") > 0).height, five.height)
            hat5 = Fraction(five.filter(pl.col("c") == 5).height, five.height)
            at1 = sum((Fraction(c, n) for n, c in zip(e["n"], e["c"])), Fraction(0)) / e.height
            for col, want in (("pass_at_5", at5), ("pass_hat_5", hat5), ("pass_at_1", at1)):
                cell = cells[(entry, col, policy)]
                assert cell["tier"] == "not_published" and cell["published"] == ""
                assert cell["recomputed"] == f"{float(want):.6f}", (entry, col, policy)
                assert (entry, col, policy) in only
    # the figures, as read off the run (OpenHands: 43 of 80 tasks solved at least once,
    # 25 solved 5 times of 5)
    oh = "20250711_openhands_claude-4-sonnet"
    assert cells[(oh, "pass_at_5", "attempted")]["recomputed"] == "0.537500"
    assert cells[(oh, "pass_hat_5", "attempted")]["recomputed"] == "0.312500"
    text = (res / "census.txt").read_text()
    assert "Recomputed, not published" in text
    assert f"{oh} pass_at_5 [attempted]: 0.537500" in text


def test_annex_globs_match_whole_paths() -> None:
    """verify asks the annex for exactly the files the seal's globs copied: the top-level
    recovery.csv is one of them, run2's recovery.csv is not (PurePath.match, which matches
    from the right, claimed it, and verify failed every trials annex)."""
    from audit.seal.verify import _glob_matches

    assert _glob_matches("recovery.csv", "recovery.csv")
    assert not _glob_matches("recompute/pandas/run2/recovery.csv", "recovery.csv")
    assert _glob_matches("recompute/pandas/run1/cells.csv", "recompute/*/run1/*.csv")
    assert not _glob_matches("recompute/pandas/run2/cells.csv", "recompute/*/run1/*.csv")
