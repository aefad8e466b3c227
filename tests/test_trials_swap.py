"""A swap control on a trials arm (docs/controls.md): two entries' per-task outcomes
exchanged, the effect on their measures and on the rank census (trials contract,
section 17) predicted from the unperturbed data and stamped before the perturbed table
exists, then measured by both contestants.

Worked by hand on a registry of three entries over ten tasks, one trial each (registry
rows built here with polars; the prereg a test-only copy of the SkillsBench one, with
ranks and the swap declared, whose bytes no shipped arm locks):

- a|x passes every task, b|x none, c|x t01..t08 (fails t09, t10); published score a 90,
  b 50, c 10, so the published order is a, b, c. Under E and S every task mean is
  exactly 1 or 0 (trials 1, score 100.0 or 0.0), so a's reward_macro and pass_macro are
  100, b's 0; the swap of a and b exchanges them (100 -> 0 and 0 -> 100), 10 tasks each.
- Pairs (shared, a_only, b_only) by counting tasks: before (a,b) 10, 10, 0; (a,c) 10, 2,
  0; (b,c) 10, 0, 8. After the swap a holds b's zeros and b a's ones: (a,b) 10, 0, 10;
  (a,c) 10, 0, 8; (b,c) 10, 2, 0.
- p by the sign-flip test with 999 draws: 10 differences of one sign give |T_d| = 10 only
  when all ten flips agree (2 of 1024 sign patterns: about 2 of 999 draws, p about
  0.003); 8 of one sign, 2 of 256 (p about 0.009); 2, half of all draws (p about 0.5).
  Holm over 3 pairs then separates the first two at 0.05 and ties the third, so before:
  (a,b) separated, (b,c) reversed, (a,c) tied; after: (a,b) reversed, (a,c) reversed,
  (b,c) tied. The exact p of every pair is checked by tests/test_ranks_trials.py's
  separate recompute of the blake3 flips (``_check``), from the outcomes written here.
- Tie groups: before a {a, c}, b {b}, c {a, c}; after a {a}, b {b, c}, c {b, c}.
- Rank intervals (bootstrap, k = floor(999 x 0.025) + 1 = 25): the entry with every task
  is 1 in every draw (rank 1), the one with none 0 (rank 3); c is 1 only in the draws
  that pick neither t09 nor t10, (8/10)^10 = 10.7 % of them (about 107, well over 25),
  else below the all-pass entry: c's interval is 1 to 2. So before a 1-1, b 3-3; after
  a 3-3, b 1-1; c 1-2 both times.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import blake3
import polars as pl
import pytest
import yaml

from audit.errors import AuditError
from audit.seal.stamp import stamp
from audit.trials.prereg import load, load_record
from audit.trials.record import parse
from controls import sources, trials_swap
from controls.errors import ControlError
from tests.conftest import ROOT, impl_python, run, run_dag
from tests.test_ranks_trials import _check

IMPLS = ("pandas", "pyarrow")
TASKS = [f"t{i:02d}" for i in range(1, 11)]
PASSES = {"a|x": set(TASKS), "b|x": set(), "c|x": set(TASKS[:8])}
PUBLISHED = {"a|x": 90.0, "b|x": 50.0, "c|x": 10.0}
RANKS = {"columns": ["score"], "policy": "S", "alpha": 0.05, "correction": "holm",
         "seed": 5, "draws": 999}  # fmt: skip
SWAP = {"kind": "swap", "target": {"entries": ["b|x", "a|x"]}}


def _bundle(out: Path) -> Path:
    out.mkdir(parents=True)
    rows = [
        {"model": e[0], "harness": "h", "condition": "x", "task": t,
         "score": 100.0 if t in won else 0.0, "trials": 1, "passCount": int(t in won),
         "perfectCount": int(t in won)}
        for e, won in PASSES.items()
        for t in TASKS
    ]  # fmt: skip
    pl.DataFrame(rows).write_parquet(out / "registry.parquet")
    board = [
        {"model": e[0], "condition": "x", "score": s, "ci95": 1.0, "tasks": 10, "source": "t"}
        for e, s in PUBLISHED.items()
    ]
    pl.DataFrame(board).write_parquet(out / "leaderboard.parquet")
    return out


def _prereg(tmp: Path, **controls: dict) -> Path:
    doc = yaml.safe_load(
        (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
    )
    doc["name"] = "tiny-swap"
    for col in doc["leaderboard"]["columns"]["measured"].values():
        col["row_tolerances"] = {}  # the shipped board's rows are not on this one
    doc["ranks"] = RANKS
    doc["controls"] = controls
    path = tmp / "tiny-swap.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _contestants(prereg: Path, bundle: Path, out: Path) -> dict[str, Path]:
    for impl in IMPLS:
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(out / impl), "--no-draws"]
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
    for f in ("entries.csv", "ranks.csv", "rank_pairs.csv"):
        assert (out / "pandas" / f).read_bytes() == (out / "pyarrow" / f).read_bytes(), f
    return {i: out / i for i in IMPLS}


def _controls(*args: str) -> None:
    res = run([sys.executable, "-m", "controls", *args])
    assert res.code == 0, res.stderr


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _through_controls(tmp: Path, prereg: Path, bundle: Path, table: str) -> dict:
    """Predict (stamped), perturb, rerun both contestants, check: the controls' commands
    as the workflow runs them."""
    before = _contestants(prereg, bundle, tmp / "before")
    src = ["--prereg", str(prereg), "--kind", "trials", "--control", "swap_ab",
           "--table", str(bundle / table), "--ranks", str(before["pandas"])]  # fmt: skip
    ctl = tmp / "controls"
    _controls("predict", *src, "--out", str(ctl))
    # the prediction and its rank census exist, stamped, before any perturbed table
    assert not (ctl / "swap_ab" / "bundle").exists()
    _controls("perturb", *src, "--controls", str(ctl), "--events", str(tmp / "events"))
    after = _contestants(prereg, ctl / "swap_ab" / "bundle", ctl / "swap_ab")
    check = ["check", "--prereg", str(prereg), "--kind", "trials", "--control", "swap_ab",
             "--before", "pandas", str(before["pandas"]), "--before", "pyarrow",
             str(before["pyarrow"])]  # fmt: skip
    _controls(*check, "--controls", str(ctl), "--out-csv", str(tmp / "c.csv"),
              "--out-md", str(tmp / "c.md"))  # fmt: skip
    return {"tmp": tmp, "prereg": prereg, "bundle": bundle, "before": before, "after": after,
            "ctl": ctl, "check": check}  # fmt: skip


@pytest.fixture(scope="module")
def swapped(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The swap of a|x and b|x through the controls' commands, on the tiny registry."""
    tmp = tmp_path_factory.mktemp("trials-swap")
    bundle = _bundle(tmp / "bundle")
    return _through_controls(tmp, _prereg(tmp, swap_ab=SWAP), bundle, "registry.parquet")


def test_prediction_by_hand(swapped: dict) -> None:
    folder = swapped["ctl"] / "swap_ab"
    sel = json.loads((folder / "selection.json").read_text(encoding="utf-8"))
    assert sel["row_ids"] == ["a|x", "b|x"] and sel["kind"] == "swap"
    got = {
        (r["entry"], r["policy"], r["measure"]): (r["before"], r["after"], r["change"])
        for r in _rows((folder / "prediction.csv").read_text(encoding="utf-8"))
    }
    want = {}
    for pol in ("E", "S"):
        want[("a|x", pol, "tasks")] = ("10", "10", "+0")
        want[("b|x", pol, "tasks")] = ("10", "10", "+0")
        for m in ("reward_macro", "pass_macro"):
            want[("a|x", pol, m)] = ("100.000000", "0.000000", "-100.000000")
            want[("b|x", pol, m)] = ("0.000000", "100.000000", "+100.000000")
    assert got == want
    rank = sel["ranks"]
    assert rank["columns"] == ["score"] and rank["not_predicted"] == {}
    pairs = {(p["row_a"], p["row_b"]): p for p in _rows(rank["rank_pairs.csv"])}
    assert {k: (p["shared"], p["a_only"], p["b_only"], p["verdict"]) for k, p in pairs.items()} == {
        ("a|x", "b|x"): ("10", "0", "10", "reversed"),
        ("a|x", "c|x"): ("10", "0", "8", "reversed"),
        ("b|x", "c|x"): ("10", "2", "0", "tied"),
    }
    ranks = {r["row_id"]: r for r in _rows(rank["ranks.csv"])}
    fields = ("tie_group", "rank_lo", "rank_hi", "next_verdict", "items")
    assert {k: tuple(r[f] for f in fields) for k, r in ranks.items()} == {
        "a|x": ("a|x", "3", "3", "reversed", "10"),
        "b|x": ("b|x; c|x", "1", "1", "tied", "10"),
        "c|x": ("b|x; c|x", "1", "2", "", "10"),
    }
    # what moved, against the unperturbed run (by hand above): every pair's verdict but
    # none of the p-values, which move with their outcomes: (a,c) after holds (b,c)'s
    # p before and (b,c) after (a,c)'s
    old = {(p["row_a"], p["row_b"]): p for p in _rows(
        (swapped["before"]["pandas"] / "rank_pairs.csv").read_text(encoding="utf-8"))}  # fmt: skip
    assert [old[k]["verdict"] for k in pairs] == ["separated", "tied", "reversed"]
    assert pairs[("a|x", "b|x")]["p"] == old[("a|x", "b|x")]["p"]
    assert pairs[("a|x", "c|x")]["p"] == old[("b|x", "c|x")]["p"]
    assert pairs[("b|x", "c|x")]["p"] == old[("a|x", "c|x")]["p"]
    # every figure of the predicted files against the separate recompute, from the
    # swapped outcomes written here
    out = swapped["tmp"] / "predicted"
    out.mkdir()
    for f in ("ranks.csv", "rank_pairs.csv"):
        (out / f).write_text(rank[f], encoding="utf-8")
    swapped_passes = {"a|x": PASSES["b|x"], "b|x": PASSES["a|x"], "c|x": PASSES["c|x"]}
    x = {e: {t: Fraction(int(t in won)) for t in TASKS} for e, won in swapped_passes.items()}
    _check(out, "score", ["a|x", "b|x", "c|x"], x, 5, 999, Fraction(1, 20))


def test_both_contestants_measure_the_prediction(swapped: dict) -> None:
    folder = swapped["ctl"] / "swap_ab"
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["verdict"] == "pass", verdict["reasons"]
    assert verdict["ranks_predicted"] == ["score"] and verdict["cells_ok"] == 12
    rank = json.loads((folder / "selection.json").read_text(encoding="utf-8"))["ranks"]
    for impl in IMPLS:
        for f in ("ranks.csv", "rank_pairs.csv"):
            text = (swapped["after"][impl] / f).read_text(encoding="utf-8")
            assert text == rank[f]
            assert text != (swapped["before"][impl] / f).read_text(encoding="utf-8")
    summary = (swapped["tmp"] / "c.csv").read_text(encoding="utf-8")
    assert "swap_ab,swap,a|x <-> b|x,12,12,0,0,true,pass," in summary


@pytest.mark.parametrize("what", ["ranks", "entries"])
def test_a_wrong_prediction_fails(swapped: dict, what: str, tmp_path: Path) -> None:
    """A prediction stamped wrong, one adjacent verdict of the rank census (the (b,c)
    pair called reversed, not tied), or one entry's value (b's reward_macro under S
    after the swap 99.0, not 100): the check fails it, naming what did not match."""
    ctl = tmp_path / "controls"
    folder = ctl / "swap_ab"
    shutil.copytree(swapped["ctl"] / "swap_ab", folder)
    (folder / "stamp.first.json").unlink()
    sel = json.loads((folder / "selection.json").read_text(encoding="utf-8"))
    if what == "ranks":
        wrong = "b|x,c|x,10,2,0,"
        text = sel["ranks"]["rank_pairs.csv"]
        assert text.count(wrong) == 1 and text.rstrip("\n").endswith(",tied")
        sel["ranks"]["rank_pairs.csv"] = text.replace(",tied\n", ",reversed\n")
        (folder / "selection.json").write_text(json.dumps(sel, indent=2, sort_keys=True) + "\n")
    else:
        text = (folder / "prediction.csv").read_text(encoding="utf-8")
        line = "b|x,S,reward_macro,0.000000,100.000000,+100.000000\n"
        assert line in text
        (folder / "prediction.csv").write_text(
            text.replace(line, "b|x,S,reward_macro,0.000000,99.000000,+99.000000\n")
        )
    stamp([str(folder / "prediction.csv"), str(folder / "selection.json")],
          str(folder / "stamp.json"))  # fmt: skip
    for impl in IMPLS:  # the same reruns
        shutil.copytree(swapped["after"][impl], folder / impl, dirs_exist_ok=True)
    _controls(*swapped["check"], "--controls", str(ctl), "--out-csv", str(tmp_path / "c.csv"),
              "--out-md", str(tmp_path / "c.md"))  # fmt: skip
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["verdict"] == "fail"
    if what == "ranks":
        assert verdict["reasons"] == [
            "pandas: rank_pairs.csv not as predicted after the swap",
            "pyarrow: rank_pairs.csv not as predicted after the swap",
        ]
    else:
        assert verdict["reasons"] == ["1 predicted value(s) not measured as predicted"]


def test_perturbed_registry_is_the_predicted_edit(swapped: dict) -> None:
    """The perturbed registry: a's rows carry b's model and b's a's, every other column and
    the rows' order as shipped."""
    old = pl.read_parquet(swapped["bundle"] / "registry.parquet")
    new = pl.read_parquet(swapped["ctl"] / "swap_ab" / "bundle" / "registry.parquet")
    assert new.columns == old.columns
    assert new["model"].to_list() == ["b"] * 10 + ["a"] * 10 + ["c"] * 10
    assert new.drop("model").equals(old.drop("model"))


def test_a_trial_table_swap_by_hand(tmp_path: Path) -> None:
    """A trial table (runs r and q): r has task a 1, 1, 0 and task b 0.5, 0.0; q task c
    1.0. Under attempted, r's reward_macro is (2/3 + 1/4) / 2 = 11/24 and its pass share
    (2/3 + 0) / 2 = 1/3 (times the BenchFlow prereg's scale 100: 45.833333, 33.333333);
    q's 100 and 100. The swap exchanges them, and every trial keeps its other columns."""
    doc = yaml.safe_load((ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"))
    assert doc["scale"] == 100
    doc["controls"] = {"s": {"kind": "swap", "target": {"runs": ["r", "q"]}}}
    rec = parse(doc, "benchflow-sample.yaml")
    rows = [
        {"run": r, "task": t, "trial_id": i, "copy": 0, "folder": f"{r}/{i}", "status": "scored",
         "reward": w, "started_at": None}
        for r, t, i, w in [("r", "a", "a1", 1.0), ("r", "a", "a2", 1.0), ("r", "a", "a3", 0.0),
                           ("r", "b", "b1", 0.5), ("r", "b", "b2", 0.0), ("q", "c", "c1", 1.0)]
    ]  # fmt: skip
    text, sel = sources.predict(rec, rows, "s")
    assert sel == {"control": "s", "kind": "swap", "size": None, "row_ids": ["q", "r"]}
    got = {(r["entry"], r["policy"], r["measure"]): (r["before"], r["after"])
           for r in _rows(text)}  # fmt: skip
    assert got[("r", "attempted", "reward_macro")] == ("45.833333", "100.000000")
    assert got[("r", "attempted", "pass_macro")] == ("33.333333", "100.000000")
    assert got[("q", "attempted", "reward_macro")] == ("100.000000", "45.833333")
    assert got[("q", "attempted", "tasks")] == ("1", "2")
    after = sources.apply(rec, rows, sel)
    assert [r["run"] for r in after] == ["q"] * 5 + ["r"]
    assert [{k: v for k, v in r.items() if k != "run"} for r in after] == [
        {k: v for k, v in r.items() if k != "run"} for r in rows
    ]


def test_seeded_pair_is_the_select_stream(tmp_path: Path) -> None:
    """A seeded swap takes the two entries the selection stream puts first (d = 0, as a
    row), recomputed here from blake3; fewer than two entries is refused."""
    rec = load_record(_prereg(tmp_path, s={"kind": "swap", "target": "seeded"}))
    rows = pl.read_parquet(_bundle(tmp_path / "b") / "registry.parquet").to_dicts()
    known = ["a|x", "b|x", "c|x"]
    keys = [
        int.from_bytes(blake3.blake3(f"{rec.seed}|s|0|{i}".encode()).digest()[:8], "big")
        for i in range(3)
    ]
    first = sorted(known[i] for i in sorted(range(3), key=lambda i: (keys[i], i))[:2])
    assert trials_swap.choose(rec, "s", rows) == first
    with pytest.raises(ControlError, match="needs two entries"):
        trials_swap.choose(rec, "s", [r for r in rows if r["model"] == "a"])


@pytest.mark.parametrize(
    "prereg, target, why",
    [
        ("skillsbench-registry", {"runs": ["a|x", "b|x"]}, "targets an entry, not a run"),
        ("benchflow-sample", {"entries": ["r", "q"]}, "targets a run, not an entry"),
        ("skillsbench-registry", {"entries": ["a|x"]}, "matches none of the allowed shapes"),
        ("skillsbench-registry", {"entries": ["a|x", "a|x"]}, "none of the allowed shapes"),
    ],
)
def test_prereg_refuses_a_swap_of_the_wrong_shape(tmp_path: Path, prereg, target, why) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / f"{prereg}.yaml").read_text(encoding="utf-8"))
    doc["controls"] = {"s": {"kind": "swap", "target": target}}
    p = tmp_path / "p.yaml"
    p.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(AuditError, match=why) as e:
        load(p)
    assert e.value.kind == "bad_prereg"


TERMINAL_BENCH = ROOT.parent / "shared" / "bundles" / "terminal-bench-sample"


@pytest.mark.slow  # two contestants twice on 80 tasks x 4 submissions: 20 s of CPU
def test_a_trial_table_swap_moves_the_rank_census(impl_envs, tmp_path: Path) -> None:
    """A trial table source (the Terminal-Bench sample, adapted; section 16): the swap of
    the published top and bottom submissions (Goose 0.4525, Mini SWE-Agent 0.128), under a
    test-only copy of its prereg with ranks declared over accuracy, passes through the
    controls' commands with both contestants: each entry measures what the other did, and
    the rank census after the swap is the stamped one. By hand, from the unperturbed run:
    the two exchange rank intervals and every pair with either of them is the pair of the
    other one, turned round where the other stood below."""
    if not (TERMINAL_BENCH / "leaderboard.csv").is_file():
        pytest.skip("Terminal-Bench bundle not present")
    goose, mini = "20250829_goose_claude-4-opus", "20250825_swe-agent-mini_claude-4-sonnet"
    bundle = tmp_path / "bundle"
    res = run([sys.executable, "-m", "audit", "adapt-trials", "--jobs",
               str(TERMINAL_BENCH / "results"), "--format", "tb-run-v1", "--duplicates", "once",
               "--min-tries", "5", "--out", str(bundle)])  # fmt: skip
    assert res.code == 0, res.stderr
    (bundle / "leaderboard.csv").write_bytes((TERMINAL_BENCH / "leaderboard.csv").read_bytes())
    text = (ROOT / "prereg" / "terminal-bench-sample.yaml").read_text(encoding="utf-8")
    assert text.count("\nseed:") == 1 and text.count("\ncontrols: {}\n") == 1
    text = text.replace("\nseed:", "\nranks: {columns: [accuracy], policy: attempted, "
                        "alpha: 0.05, correction: holm, seed: 2, draws: 300}\nseed:")  # fmt: skip
    text = text.replace("\ncontrols: {}\n", "\ncontrols:\n  swap_ab: {kind: swap, target: "
                        f"{{runs: [{goose}, {mini}]}}}}\n")  # fmt: skip
    prereg = tmp_path / "tb-swap.yaml"
    prereg.write_text(text, encoding="utf-8")
    got = _through_controls(tmp_path, prereg, bundle, "trials.parquet")
    folder = got["ctl"] / "swap_ab"
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["verdict"] == "pass", verdict["reasons"]
    assert verdict["ranks_predicted"] == ["accuracy"]
    pred = _rows((folder / "prediction.csv").read_text(encoding="utf-8"))
    by = {(r["entry"], r["policy"], r["measure"]): r for r in pred}
    for pol in ("attempted", "scored"):
        for m in ("tasks", "reward_macro", "pass_macro"):
            assert by[(goose, pol, m)]["after"] == by[(mini, pol, m)]["before"]
            assert by[(mini, pol, m)]["after"] == by[(goose, pol, m)]["before"]
    old = {r["row_id"]: r for r in _rows((got["before"]["pandas"] / "ranks.csv").read_text())}
    new = {r["row_id"]: r for r in _rows((got["after"]["pyarrow"] / "ranks.csv").read_text())}
    swap = {goose: mini, mini: goose}
    for row in old:
        src = old[swap.get(row, row)]
        assert (new[row]["rank_lo"], new[row]["rank_hi"]) == (src["rank_lo"], src["rank_hi"])
    order = list(old)
    pos = {r: i for i, r in enumerate(order)}
    before = {(p["row_a"], p["row_b"]): p for p in _rows(
        (got["before"]["pandas"] / "rank_pairs.csv").read_text())}  # fmt: skip
    turned = {"separated": "reversed", "reversed": "separated", "tied": "tied"}
    for p in _rows((got["after"]["pandas"] / "rank_pairs.csv").read_text()):
        a, b = swap.get(p["row_a"], p["row_a"]), swap.get(p["row_b"], p["row_b"])
        if pos[a] < pos[b]:
            q = before[(a, b)]
            assert (p["a_only"], p["b_only"], p["verdict"]) == (
                q["a_only"], q["b_only"], q["verdict"])  # fmt: skip
        else:
            q = before[(b, a)]
            assert (p["a_only"], p["b_only"], p["verdict"]) == (
                q["b_only"], q["a_only"], turned[q["verdict"]])  # fmt: skip
        assert (p["shared"], p["p"], p["p_adjusted"]) == (q["shared"], q["p"], q["p_adjusted"])
    print((got["after"]["pandas"] / "rank_pairs.csv").read_text())


SKILLSBENCH = ROOT.parent / "shared" / "bundles" / "skillsbench-registry"
TOP, BOTTOM = "OpenHands (GPT-5.5)|With Skills", "OpenHands (GLM 5.1)|With Skills"


@pytest.mark.slow
def test_a_swap_through_the_workflow(impl_envs, tmp_path: Path) -> None:
    """The SkillsBench arm under a test-only copy of its prereg (the shipped one, whose
    annex is pinned, is not changed) with ranks declared and a swap of the published
    top and bottom rows besides the shipped flip and drop: the DAG predicts and stamps
    the rank census before the perturbed registry exists, both contestants' reruns
    write it, every control passes, and the census moved."""
    if not (SKILLSBENCH / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    text = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
    assert text.count("\nseed:") == 1 and text.count("\ncompare: null") == 1
    text = text.replace("name: skillsbench-registry\n", "name: skillsbench-swap\n", 1)
    text = text.replace("\nseed:", "\nranks: {columns: [score], policy: S, alpha: 0.05, "
                        "correction: holm, seed: 4, draws: 400}\nseed:")  # fmt: skip
    text = text.replace("\ncompare: null", f"\n  swap_top_bottom:\n    kind: swap\n    target: "
                        f"{{entries: [\"{TOP}\", \"{BOTTOM}\"]}}\ncompare: null")  # fmt: skip
    prereg = tmp_path / "skillsbench-swap.yaml"
    prereg.write_text(text, encoding="utf-8")
    assert set(load(prereg)["controls"]) == {"flip_deepseek_no_skills_3", "drop_seeded",
                                             "swap_top_bottom"}  # fmt: skip
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    res = run_dag(tmp_path, "--config", "arm=skillsbench-swap", f"bundle={SKILLSBENCH}",
                  f"prereg={prereg}", f"prereg_blake3={digest}")  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    arm = tmp_path / "results" / "skillsbench-swap"
    controls = {r["control"]: r for r in _rows((arm / "controls.csv").read_text("utf-8"))}
    assert {k: r["verdict"] for k, r in controls.items()} == {
        "flip_deepseek_no_skills_3": "pass", "drop_seeded": "pass", "swap_top_bottom": "pass"
    }  # fmt: skip
    folder = arm / "controls" / "swap_top_bottom"
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["ranks_predicted"] == ["score"] and verdict["ranks_not_predicted"] == {}
    rank = json.loads((folder / "selection.json").read_text(encoding="utf-8"))["ranks"]
    before = arm / "recompute" / "pandas" / "run1"
    for impl in IMPLS:
        for f in ("ranks.csv", "rank_pairs.csv"):
            assert (folder / impl / f).read_text(encoding="utf-8") == rank[f]
            assert rank[f] != (before / f).read_text(encoding="utf-8")  # the census moved
    # stamped in the ledger before the perturbed registry was built
    lines = [json.loads(ln) for ln in (arm / "ledger.jsonl").read_text().splitlines()]
    rel = "controls/swap_top_bottom"
    stamped = [ln for ln in lines if ln["event"] == "prediction_stamped"
               and ln["subject"].endswith(f"{rel}/selection.json")]  # fmt: skip
    built = [ln for ln in lines if ln["event"] == "bundle_perturbed"
             and ln["subject"].endswith(f"{rel}/bundle/registry.parquet")]  # fmt: skip
    assert len(stamped) == len(built) == 1 and stamped[0]["seq"] < built[0]["seq"]
    assert (
        stamped[0]["blake3"] == blake3.blake3((folder / "selection.json").read_bytes()).hexdigest()
    )
    # the rank section states each adjacent pair's p, a sign-flip p down to its floor
    cert = (arm / "annex" / "certificate.md").read_text(encoding="utf-8")
    assert "is never below 1 / 401, printed < 0.003" in cert  # 1/401 = 0.0025, up to 0.003
    assert f"- score: {TOP} above Codex (GPT-5.5)|With Skills: tied (p " in cert
    # the published bottom two of the unperturbed run: no draw reached |T| (p = 1/401)
    tail = "(DeepSeek V4 Flash)|No Skills: separated (p < 0.003, adjusted 0.037)"
    assert f"- score: {BOTTOM} above OpenHands {tail}" in cert
    report = (arm / "report" / "report.md").read_text("utf-8")
    assert "| Test against the next |" in report and "| p < 0.003, adjusted 0.037 |" in report
    order = {r["row_id"]: r for r in _rows(rank["ranks.csv"])}
    print(f"after the swap: {TOP}: {order[TOP]['tie_group']} ({order[TOP]['next_verdict']})")
    print((before / "ranks.csv").read_text(encoding="utf-8"), rank["ranks.csv"])
