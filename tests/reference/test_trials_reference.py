"""The three trials arms against a third method (tests/reference/trials_v1.py).

For each shipped trials arm, a recompute written apart from both contestants (polars
for the tables, exact fractions for the numbers, from docs/trials-contract.md) gives
every (entry, policy)'s values (entries.csv; runs.csv where the prereg has a `runs`
block) and every measured cell's rule fields and class; the workflow's files must
match it value for value: the census the seal copies (census_cells.csv) and the
contestants' own files, both of them.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import ROOT, read_csv_rows
from tests.reference import trials_v1

ARMS = [
    pytest.param("skillsbench-registry", "skillsbench-registry", id="registry"),
    pytest.param("benchflow-sample", "benchflow-trials-sample", id="benchflow"),
    pytest.param("terminal-bench-sample", "terminal-bench-sample", id="terminal-bench"),
]
ENTRY_FIELDS = (
    "tasks", "tasks_left_out", "unordered_tasks", "rounded_tasks", "selected", "scored",
    "errored", "unscored", "excluded", "zeros_added", "values", "reward_macro",
    "reward_ci95", "reward_boot_low", "reward_boot_high", "reward_bound",
    "reward_ci95_bound", "pass_macro", "pass_ci95", "pass_boot_low", "pass_boot_high",
)  # fmt: skip


def text(v) -> str:
    if v is None:
        return ""
    return trials_v1.opt6(v) if isinstance(v, float) else str(v)


def test_the_reference_by_hand() -> None:
    """The reference's own pieces on values worked by hand from the contract."""
    # 8.1's examples: 0.1275 is stored just above the tie, 0.4125 just below it
    assert trials_v1.round_rule(Fraction(0.1275), 3, "half_even") == Fraction(128, 1000)
    assert trials_v1.round_rule(Fraction(0.1275), 3, "down") == Fraction(127, 1000)
    assert trials_v1.round_rule(Fraction(0.4125), 4, "down") == Fraction(4124, 10000)
    assert trials_v1.round_rule(Fraction(-25, 10), 0, "half_up") == -3
    assert trials_v1.round_rule(Fraction(-25, 10), 0, "half_even") == -2
    # 9: a switch point writes R's exact value (0.4125's double under `down` at 4)
    assert trials_v1.recomputed_text(Fraction(0.4125), 4, "down") == (
        "0.41249999999999997779553950749686919152736663818359375"
    )
    assert trials_v1.recomputed_text(Fraction(0.4125), 4, "half_even") == "0.412500"
    # 7.1 on three task means 1, 0, 0.5: sum 1.5 / 3 = 0.5, x 100 = 50
    assert trials_v1.macro([1.0, 0.0, 0.5], 100.0) == 50.0
    # 7.2: sd of (1, 0, 0.5) is 0.5; 1.96 * 0.5 / sqrt(3) * 100 = 56.580326...
    assert trials_v1.opt6(trials_v1.ci95([1.0, 0.0, 0.5], 100.0)) == "56.580326"
    # 16.5: a task with 5 tries and 2 successes: pass@5 = 1, pass^5 = 0, pass@1 = 2/5
    tasks = {"t": {"unordered": False, "values": [1.0, 0.0, 1.0, 0.0, 0.0]}}
    assert trials_v1.pass_k(tasks, 5, 1.0, hat=False) == 1.0
    assert trials_v1.pass_k(tasks, 5, 1.0, hat=True) == 0.0
    assert trials_v1.pass_k(tasks, 1, 1.0, hat=False) == 0.4


def compare(ref: dict, res: Path, impl: str) -> list[str]:
    """Every difference between the reference and the workflow's files, in words."""
    bad: list[str] = []
    run = res / "recompute" / impl / "run1"
    rows = read_csv_rows(run / "entries.csv")
    if {(r["entry"], r["policy"]) for r in rows} != ref["entries"].keys():
        bad.append(f"entries.csv: other (entry, policy) pairs than the reference's ({impl})")
    for r in rows:
        s = ref["entries"].get((r["entry"], r["policy"]), {})
        for f in ENTRY_FIELDS:
            if text(s.get(f)) != r[f]:
                bad.append(f"{impl} entries {r['entry']}/{r['policy']} {f}: "
                           f"reference {text(s.get(f))!r}, workflow {r[f]!r}")  # fmt: skip
    if (run / "runs.csv").is_file():
        for r in read_csv_rows(run / "runs.csv"):
            s = ref["entries"][(r["entry"], r["policy"])]
            for f in trials_v1.RUN_MEASURES:
                if text(s.get(f)) != r[f]:
                    bad.append(f"{impl} runs {r['entry']}/{r['policy']} {f}: "
                               f"reference {text(s.get(f))!r}, workflow {r[f]!r}")  # fmt: skip
    fields = ("recomputed", "abs_diff", "tier", "bound", "certain_tier")
    theirs = {
        (r["row_id"], r["column"], r["policy"]): tuple(r[f] for f in fields)
        for r in read_csv_rows(run / "cells.csv")
        if r["kind"] == "measured"
    }
    if theirs.keys() != ref["cells"].keys():
        bad.append(f"{impl} cells.csv: other (row, column, rule) lines than the reference's")
    for key in sorted(theirs.keys() & ref["cells"].keys()):
        if theirs[key] != ref["cells"][key]:
            bad.append(f"{impl} cell {key}: reference {ref['cells'][key]}, workflow {theirs[key]}")
    return bad


def census_differences(ref: dict, rows: list[dict[str, str]]) -> list[str]:
    fields = ("class", "best_tier", "policies", "min_abs_diff")
    theirs = {(r["row_id"], r["column"]): tuple(r[f] for f in fields) for r in rows}
    bad = [f"census {k}: not in the reference" for k in sorted(theirs.keys() - ref.keys())]
    bad += [f"census {k}: not in the workflow" for k in sorted(ref.keys() - theirs.keys())]
    for key in sorted(theirs.keys() & ref.keys()):
        if theirs[key] != ref[key]:
            bad.append(f"census {key}: reference {ref[key]}, workflow {theirs[key]}")
    return bad


@pytest.mark.slow
@pytest.mark.realbundle
@pytest.mark.parametrize(("arm", "bundle"), ARMS)
def test_the_trials_arm_matches_the_reference(arm: str, bundle: str, arm_run) -> None:
    res = arm_run(arm, bundle)
    prereg = ROOT / "prereg" / f"{arm}.yaml"
    # the folder the contestants read: the adapter's trial table and a copy of the
    # leaderboard for a trials source; the shipped bundle for a registry
    folder = res / "bundle"
    if not folder.is_dir():
        folder = (ROOT / ".." / "shared" / "bundles" / bundle).resolve()
    ref = trials_v1.recompute(prereg, folder)
    assert ref["entries"], "the reference computed no entry"
    bad = census_differences(ref["census"], read_csv_rows(res / "census_cells.csv"))
    for impl in ("pandas", "pyarrow"):
        bad += compare(ref, res, impl)
    assert not bad, f"{arm}: {len(bad)} differences:\n" + "\n".join(bad[:40])


# docs/trials-contract.md section 14, the registry's table (m; E macro, E ci95, S macro,
# S ci95, E bootstrap low and high), copied from the page: the third method must give it.
SECTION_14 = {
    "OpenHands (DeepSeek V4 Flash)|No Skills": (6, "27.491188", "7.416941", "27.489655",
                                                "7.417657", "20.596935", "35.132567"),
    "OpenHands (GPT-5.5)|With Skills": (6, "67.275862", "8.246311", "67.280460", "8.246642",
                                        "59.009195", "75.182759"),
    "Codex (GPT-5.5)|With Skills": (5, "66.459770", "8.469523", "66.458621", "8.470331",
                                    "57.893870", "75.003448"),
    "Claude Code (Opus 4.7)|With Skills": (6, "61.178161", "8.593240", "61.180460",
                                           "8.593904", "52.653257", "70.366667"),
    "Gemini CLI (Gemini 3.1 Pro)|With Skills": (1, "60.789272", "9.345457", "60.788506",
                                                "9.345985", "51.593870", "70.750958"),
    "OpenHands (GLM 5.1)|With Skills": (6, "58.390805", "8.766287", "58.393103", "8.766971",
                                        "49.750958", "67.134483"),
}  # fmt: skip


@pytest.mark.realbundle
def test_section_14_registry_figures_by_the_reference() -> None:
    bundle = (ROOT / ".." / "shared" / "bundles" / "skillsbench-registry").resolve()
    if not bundle.is_dir():
        pytest.skip("real bundle not present at ../shared/bundles/skillsbench-registry")
    ref = trials_v1.recompute(ROOT / "prereg" / "skillsbench-registry.yaml", bundle)
    for row, want in SECTION_14.items():
        e, s = ref["entries"][(row, "E")], ref["entries"][(row, "S")]
        got = (e["rounded_tasks"], *map(text, (e["reward_macro"], e["reward_ci95"],
               s["reward_macro"], s["reward_ci95"], e["reward_boot_low"],
               e["reward_boot_high"])))  # fmt: skip
        assert got == want, row
    # DeepSeek's tiers and certain tiers (and the bounds 0.003448, 0.002775, 0.010568)
    cells = ref["cells"]
    deepseek = "OpenHands (DeepSeek V4 Flash)|No Skills"
    assert cells[(deepseek, "score", "E")][2:] == ("1", "0.003448", "1")
    assert cells[(deepseek, "score", "S")][2:] == ("0", "0.050000", "undetermined")
    assert cells[(deepseek, "ci95", "E")][2:] == ("0", "0.002775", "1")
    assert cells[(deepseek, "ci95", "S")][2:] == ("1", "0.010568", "2")
    # the five With-Skills rows: E 0/0, S 0/2; ci95 not published; every row reproduced
    for row in list(SECTION_14)[1:]:
        assert (cells[(row, "score", "E")][2], cells[(row, "score", "E")][4]) == ("0", "0")
        assert (cells[(row, "score", "S")][2], cells[(row, "score", "S")][4]) == ("0", "2")
        assert ref["census"][(row, "ci95")][0] == "not_published"
    assert {ref["census"][(r, "score")][0] for r in SECTION_14} == {"reproduced"}


@pytest.mark.slow
@pytest.mark.realbundle
def test_attempts_as_runs_figures_by_the_reference(arm_run, tmp_path: Path) -> None:
    """docs/trials-contract.md 16.3, "Attempts as runs": with `unit: attempt` the
    Orchestrator's five attempts are its replicates: se_runs_sample scored 0.020471,
    se_binomial_pooled 0.025301 scored and 0.024000 attempted; its published stderr
    0.02 reproduced at tier 0."""
    res = arm_run("terminal-bench-sample", "terminal-bench-sample")
    text_ = (ROOT / "prereg" / "terminal-bench-sample.yaml").read_text(encoding="utf-8")
    assert "  unit: tb_run" in text_
    prereg = tmp_path / "attempt.yaml"
    prereg.write_text(text_.replace("  unit: tb_run", "  unit: attempt", 1), encoding="utf-8")
    ref = trials_v1.recompute(prereg, res / "bundle")
    orch = "20250902_orchestrator_claude-4-sonnet"
    scored, attempted = ref["entries"][(orch, "scored")], ref["entries"][(orch, "attempted")]
    assert text(scored["se_runs_sample"]) == "0.020471"
    assert text(scored["se_binomial_pooled"]) == "0.025301"
    assert text(attempted["se_binomial_pooled"]) == "0.024000"
    cls, best, policies, _ = ref["census"][(orch, "stderr")]
    assert (cls, best) == ("reproduced", "0") and "scored/se_runs_sample/half_even" in policies


def _broken_verifier_board(folder: Path) -> Path:
    """One entry, two tb runs, two tasks; one trial's verifier broken (reward 1.0, regraded
    0.0). Three policies: exclude_trial, regraded, exclude_task_both_sides."""
    import polars as pl
    import yaml

    folder.mkdir(parents=True)
    pl.DataFrame(
        {"run": ["e"] * 4, "task": ["t1", "t1", "t2", "t2"], "trial_id": ["x0", "x1", "x2", "x3"],
         "copy": [0] * 4, "status": ["scored"] * 4, "reward": [1.0, 0.0, 1.0, 1.0],
         "started_at": [None] * 4, "verifier_broken": [True, False, False, False],
         "reward_regraded": [0.0, None, None, None], "tb_run": ["r1", "r2", "r1", "r2"], "attempt": [None] * 4},
        schema={"run": pl.String, "task": pl.String, "trial_id": pl.String, "copy": pl.Int64,
                "status": pl.String, "reward": pl.Float64, "started_at": pl.String,
                "verifier_broken": pl.Boolean, "reward_regraded": pl.Float64,
                "tb_run": pl.String, "attempt": pl.Int64},
    ).write_parquet(folder / "trials.parquet")  # fmt: skip
    doc = yaml.safe_load((ROOT / "prereg" / "terminal-bench-sample.yaml").read_text("utf-8"))
    doc["leaderboard"] = None
    doc["policies"] = {"nobroken": {
        "select": "all", "k": None, "copies": "drop", "errored": "zero", "unscored": "zero",
        "empty_slots": "ignore", "slots": None, "broken_verifier": "exclude_trial",
        "description": "a trial whose verifier broke is left out"}}  # fmt: skip
    base = doc["policies"]["nobroken"]
    doc["policies"]["regrade"] = {**base, "reward": "regraded",
                                  "description": "a regrade replaces the reward"}  # fmt: skip
    doc["policies"]["bothsides"] = {**base, "broken_verifier": "exclude_task_both_sides",
                                    "description": "a task with a broken verifier leaves"}  # fmt: skip
    (folder / "prereg.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return folder


def test_the_reference_leaves_a_broken_trial_out_of_the_run_measures(tmp_path: Path) -> None:
    """16.3's values are 6.2 step 3's, and 6.3 acts within step 3: under
    broken_verifier: exclude_trial the broken trial is no value. By hand: run r1 keeps
    t2's 1.0, r2 keeps 0.0 and 1.0; pooled 2/3, run mean (1 + 1/2) / 2 = 0.75."""
    folder = _broken_verifier_board(tmp_path / "b")
    ref = trials_v1.recompute(folder / "prereg.yaml", folder)
    s = ref["entries"][("e", "nobroken")]
    assert (text(s["pooled_rate"]), text(s["run_mean"])) == ("0.666667", "0.750000")
    assert (s["excluded"], s["values"]) == (1, 3)


# The three policies' run-level figures on the board above, by hand (r1 holds x0 and x2,
# r2 holds x1 and x3; t1 holds x0 and x1, t2 holds x2 and x3):
# - nobroken (exclude_trial): x0 is no value; r1 {1.0}, r2 {0.0, 1.0}: 3 trials,
#   pooled 2/3, run mean (1 + 1/2) / 2 = 0.75. Keeping x0's 1.0 (the shared mistake)
#   gives 4 trials, pooled 3/4.
# - regrade (reward: regraded): x0's regrade 0.0 replaces its reward 1.0; r1 {0.0, 1.0},
#   r2 {0.0, 1.0}: 4 trials, pooled 1/2, run mean 1/2 (the mistake: 3/4).
# - bothsides (exclude_task_both_sides): t1 leaves, x0 and x1 are no value; r1 {1.0},
#   r2 {1.0}: 2 trials, pooled 1, run mean 1 (the mistake: 4 trials, 3/4).
BROKEN_BOARD_RUNS = {
    "nobroken": ("3", "0.666667", "0.750000"),
    "regrade": ("4", "0.500000", "0.500000"),
    "bothsides": ("2", "1.000000", "1.000000"),
}


def test_the_reference_takes_each_policy_key_in_the_run_measures(tmp_path: Path) -> None:
    folder = _broken_verifier_board(tmp_path / "b")
    ref = trials_v1.recompute(folder / "prereg.yaml", folder)
    for name, (_, pooled, mean) in BROKEN_BOARD_RUNS.items():
        s = ref["entries"][("e", name)]
        assert (text(s["pooled_rate"]), text(s["run_mean"])) == (pooled, mean), name


@pytest.mark.parametrize("impl", ["pandas", "pyarrow"])
def test_the_contestants_leave_a_broken_trial_out_of_the_run_measures(
    impl, impl_envs, tmp_path: Path
) -> None:
    from tests.conftest import impl_python, run

    folder = _broken_verifier_board(tmp_path / "b")
    r = run([str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg",
             str(folder / "prereg.yaml"), "--bundle", str(folder), "--out", str(tmp_path / "o")])  # fmt: skip
    assert r.code == 0, r.stderr
    rows = {x["policy"]: x for x in read_csv_rows(tmp_path / "o" / "runs.csv")}
    for name, want in BROKEN_BOARD_RUNS.items():
        got = (rows[name]["trials"], rows[name]["pooled_rate"], rows[name]["run_mean"])
        assert got == want, name
