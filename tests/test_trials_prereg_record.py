"""A trials prereg parsed once into frozen records (audit/trials/record.py).

The three shipped trials preregs parse, and their decisions read back as the files
say (the expected values read off prereg/*.yaml by eye, or PyYAML's own reading of
the file, an independent reader); hand-built documents cover what none ships (every
optional compare key, a run's control target, a policy's reward and broken-verifier
rules, ranks); a malformed document is refused, not half read.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from audit.core.strict_yaml import read_strict
from audit.errors import AuditError
from audit.trials import prereg
from audit.trials.record import Compare, Control, Policy, Ranks, Runs, Source, parse

ROOT = Path(__file__).resolve().parent.parent
TRIALS = ["benchflow-sample", "skillsbench-registry", "terminal-bench-sample"]


def _load(name: str):
    return prereg.load_record(ROOT / "prereg" / f"{name}.yaml")


@pytest.mark.parametrize("name", TRIALS)
def test_a_shipped_prereg_reads_back_as_the_file_says(name: str) -> None:
    rec = _load(name)
    doc = yaml.safe_load((ROOT / "prereg" / f"{name}.yaml").read_text())
    assert (rec.name, rec.seed, rec.scale) == (doc["name"], doc["seed"], doc["scale"])
    assert (rec.bootstrap_draws, rec.null_draws) == (doc["bootstrap_draws"], doc["null_draws"])
    assert rec.source.kind == doc["source"]["kind"] and rec.source.table == doc["source"]["table"]
    assert list(rec.policies) == list(doc["policies"])
    assert list(rec.controls) == list(doc["controls"] or {})
    assert list(rec.tolerances) == list(doc["tolerances"])
    for n, t in doc["tolerances"].items():
        assert rec.tolerances[n].exact_decimals == t["exact_decimals"]
        assert list(rec.tolerances[n].tiers) == t["tiers"]
    board = doc["leaderboard"]
    if board is None:
        assert rec.leaderboard is None and rec.measured() == {}
    else:
        assert rec.leaderboard is not None
        assert list(rec.leaderboard.measured) == list(board["columns"]["measured"])
        assert rec.leaderboard.row_key == tuple(board["row_key"])
        published = [n for n, s in board["columns"]["measured"].items() if "published" not in s]
        assert list(rec.measured()) == published
    assert (rec.compare is None) == (doc["compare"] is None)


def test_the_benchflow_record_by_hand() -> None:
    rec = _load("benchflow-sample")
    assert rec.source == Source("trials", "trials.parquet", format="harbor-trial-v1", jobs="jobs")
    assert rec.trials_source
    assert rec.policies["slots5"] == Policy(
        "slots5",
        "5 slots per task; a slot without a scored trial is 0",
        select="all",
        k=None,
        copies="drop",
        errored="exclude",
        unscored="exclude",
        empty_slots="zero",
        slots=5,
    )
    assert rec.controls["flip_skills_2"] == Control(
        "flip_skills_2", "flip", ("run", ("skills",)), 2
    )
    assert rec.controls["drop_seeded"].seeded and rec.controls["drop_seeded"].size is None
    assert rec.compare == Compare(
        "skills",
        "no_skills",
        "attempted",
        (1, 5),
        10000,
        ("task_source", "task_checksum", "timeout_multiplier", "force_build"),
    )
    assert rec.compare.optional() == {}
    assert rec.runs is None and rec.ranks is None and rec.amends is None


def test_the_registry_record_by_hand() -> None:
    rec = _load("skillsbench-registry")
    assert rec.source.kind == "registry" and not rec.trials_source
    assert rec.source.entry == ("model", "condition")
    assert (rec.source.task, rec.source.score, rec.source.trials) == ("task", "score", "trials")
    assert (rec.source.pass_count, rec.source.perfect_count) == ("passCount", "perfectCount")
    assert (rec.source.score_scale, rec.source.score_decimals) == (100, 1)
    assert rec.controls["flip_deepseek_no_skills_3"].target == (
        "entry",
        ("OpenHands (DeepSeek V4 Flash)|No Skills",),
    )


def test_the_terminal_bench_record_by_hand() -> None:
    rec = _load("terminal-bench-sample")
    assert (rec.source.format, rec.source.duplicates, rec.source.min_tries) == (
        "tb-run-v1",
        "once",
        5,
    )
    board = rec.leaderboard
    assert board is not None and board.types["accuracy"] == "decimal"
    acc = board.measured["accuracy"]
    assert acc.measures == ("run_mean", "pooled_rate", "reward_macro") and acc.measure_listed
    assert acc.rounding == ("half_even", "half_up", "down") and acc.published
    p5 = board.measured["pass_hat_5"]
    assert (p5.measures, p5.measure_listed, p5.k, p5.published) == (
        ("pass_hat_k",),
        False,
        5,
        False,
    )
    assert p5.rounding is None
    assert list(rec.measured()) == ["accuracy", "stderr"]
    assert rec.tolerance_of("any row", "accuracy").name == "printed"
    assert rec.tolerances["printed"].exact_decimals == "published"
    assert rec.runs == Runs("tb_run", (1, 5))
    assert rec.policies == {}


def test_shapes_no_shipped_prereg_has(tmp_path: Path) -> None:
    doc = read_strict(ROOT / "prereg" / "benchflow-sample.yaml")
    doc["compare"].update(
        difference="B-A",
        unit="points",
        reward="regraded",
        broken="exclude_trial",
        alpha=0.01,
        power=0.9,
    )
    doc["controls"]["swap_runs"] = {"kind": "swap", "target": {"runs": ["skills", "no_skills"]}}
    doc["policies"]["first3"]["reward"] = "regraded"
    doc["policies"]["first3"]["broken_verifier"] = "exclude_task_both_sides"
    path = tmp_path / "p.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    rec = prereg.load_record(path)
    assert rec.compare is not None
    assert rec.compare.optional() == {
        "difference": "B-A",
        "unit": "points",
        "reward": "regraded",
        "broken": "exclude_trial",
        "alpha": 0.01,
        "power": 0.9,
    }
    assert rec.controls["swap_runs"] == Control(
        "swap_runs", "swap", ("runs", ("skills", "no_skills"))
    )
    first3 = rec.policies["first3"]
    assert (first3.reward, first3.broken_verifier) == ("regraded", "exclude_task_both_sides")
    assert rec.policies["last3"].reward is None
    # a ranks block: the record holds it as written (parse); the lock's checks refuse
    # this one (no leaderboard to order: section 17), so load_record does not reach it
    doc["ranks"] = {
        "columns": ["x"],
        "policy": "first3",
        "alpha": 0.05,
        "correction": "holm",
        "seed": 1,
        "draws": 10,
    }
    assert parse(doc, str(path)).ranks == Ranks(("x",), "first3", 0.05, "holm", 1, 10)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    with pytest.raises(AuditError) as e:
        prereg.load_record(path)
    assert e.value.kind == "bad_prereg" and "leaderboard: null" in e.value.detail


def test_a_record_is_frozen() -> None:
    rec = _load("benchflow-sample")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.seed = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        rec.policies["x"] = rec.policies["first3"]  # type: ignore[index]


def test_a_malformed_document_is_refused_not_half_read() -> None:
    doc = read_strict(ROOT / "prereg" / "benchflow-sample.yaml")
    for broken in (
        {},
        {**doc, "policies": ["first3"]},
        {**doc, "source": {**doc["source"], "kind": "folder"}},
        {**doc, "controls": {"c": {"kind": "drop", "target": {"run": "a", "entry": "b"}}}},
        {**doc, "compare": {"a": "x"}},
        {**doc, "controls": {"c": {"kind": "drop", "target": "every"}}},
    ):
        with pytest.raises(AuditError) as e:
            parse(broken, "p.yaml")
        assert e.value.kind == "bad_prereg" and e.value.path == "p.yaml"
        assert e.value.detail.startswith("not a checked trials prereg")
