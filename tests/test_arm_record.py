"""The arm as the workflow runs it (audit/kinds/arm.py), built from a config and the
checked prereg, without Snakemake.

Expected values are read off the shipped configs and preregs by eye (the bundle
folders, the files each prereg names, its controls and compare block) and the
contracts' lists of run files (docs/contract.md, docs/trials-contract.md section 5),
not from the code under test.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from audit.cells.record import Feasibility, Ranks, frozen_mapping
from audit.kinds import arm as arm_record
from audit.kinds.arm_kind import LEADERBOARD, TRIALS, Kind, load_checked
from audit.kinds.record import Prereg

ROOT = Path(__file__).resolve().parent.parent


def _record(prereg: Path) -> tuple[Kind, Prereg]:
    """The prereg's kind and record, as the workflow reads them (common.smk)."""
    kind, doc = load_checked(prereg)
    return kind, kind.entry("parse")(doc, str(prereg))


def _arm(config: str) -> arm_record.Arm:
    cfg = yaml.safe_load((ROOT / "config" / f"{config}.yaml").read_text(encoding="utf-8"))
    return arm_record.build(cfg, *_record(ROOT / cfg["prereg"]))


def test_the_demo_arm() -> None:
    a = _arm("config")
    assert (a.name, a.kind, a.res) == ("demo", LEADERBOARD, "results/demo")
    assert a.bundle == "results/demo-bundle" and a.built_by_rule == "results/demo-bundle"
    assert a.hf_uri is None
    assert a.run_files == ("cells", "census", "reproduce", "chance", "nulls", "null_hist")
    assert a.shipped == {
        "leaderboard": "results/demo-bundle/leaderboard.parquet",
        "instances": "results/demo-bundle/instances.parquet",
    }
    assert a.lock_inputs() == a.shipped and a.read == a.shipped and a.copied == {}
    assert a.recompute_inputs() == {"lock": "results/demo/lock/lock.json", **a.shipped}
    assert a.read_dir == a.lock_bundle == "results/demo-bundle"
    assert a.lock_assembled == ()
    # prereg/demo.yaml declares six controls
    assert a.controls == (
        "flip_m2_beta",
        "nullify_m1_alpha_score",
        "nullify_m4_alpha_cost",
        "reorder_invariant",
        "shift_seeded_alpha_cost",
        "swap_m1_m2",
    )
    assert a.control_inputs() == {"files": "results/demo/lock/files.json", **a.shipped}
    assert a.controls_md == ("results/demo/controls.md",)
    assert a.final_outputs() == [
        "results/demo/census.txt",
        "results/demo/controls.md",
        "results/demo/annex",
    ]
    assert a.compare_args == () and a.referee_outputs == ()
    # 2 contestants x 2 runs x 6 files, the agreement, 4 census files, 6 controls x 2
    # contestants x 3 files, 6 checks, controls.csv
    assert len(a.recorded_outputs) == 24 + 1 + 4 + 36 + 6 + 1


def test_a_hub_bundle_is_read_where_it_is_fetched() -> None:
    cfg = {"arm": "x", "bundle": "hf://datasets/o/n@" + "a" * 40, "seat": "first"}
    a = arm_record.build(cfg, *_record(ROOT / "prereg" / "demo.yaml"))
    assert a.hf_uri == cfg["bundle"]
    assert a.bundle == a.built_by_rule == "results/x/bundle/hf"
    assert a.shipped["leaderboard"] == "results/x/bundle/hf/leaderboard.parquet"


def test_a_hub_fetch_takes_the_publisher_s_digest_file_when_the_prereg_declares_it() -> None:
    # prereg/demo.yaml declares no publisher_hash: nothing optional to fetch; given one
    # (docs/intake.md), its file, as written, is what the fetch asks for when the commit
    # has it (fetch.smk --optional)
    kind, doc = load_checked(ROOT / "prereg" / "demo.yaml")
    cfg = {"arm": "x", "bundle": "hf://datasets/o/n@" + "a" * 40}
    assert arm_record.build(cfg, kind, kind.entry("parse")(doc, "demo.yaml")).fetched_optional == ()
    ph = {"recipe": "openhands-source-hash-v1", "table": "leaderboard", "file": ".source_hash"}
    rec = kind.entry("parse")({**doc, "publisher_hash": ph}, "demo.yaml")
    a = arm_record.build(cfg, kind, rec)
    assert a.fetched_optional == (".source_hash",)
    assert a.fetched == ("leaderboard.parquet", "instances.parquet")
    # a trials arm fetches nothing from the Hub
    assert _arm("benchflow-sample").fetched_optional == ()


def test_a_prereg_declaring_feasibility_and_ranks_adds_their_run_files() -> None:
    kind, rec = _record(ROOT / "prereg" / "demo.yaml")
    rec = dataclasses.replace(
        rec,
        feasibility=frozen_mapping({"x": Feasibility("x", 8, 100, (0, 1), 1, "half_even")}),
        ranks=Ranks(("y",), 0.05, "holm", 1, 100),
    )
    a = arm_record.build({"arm": "d", "bundle": "b/"}, kind, rec)
    assert a.run_files[-3:] == ("feasibility", "ranks", "rank_pairs")
    assert a.bundle == "b"  # the trailing slash dropped
    assert a.report_inputs["ranks"] == "results/d/recompute/pandas/run1/ranks.csv"
    assert (
        a.report_outputs["ranks"] == "results/d/report/ranks.svg" and "ranks" in a.report_captions
    )


def test_a_trials_source_arm_reads_what_the_run_assembled() -> None:
    a = _arm("terminal-bench-sample")
    res = "results/terminal-bench-sample"
    bundle = "../shared/bundles/terminal-bench-sample"
    assert a.kind is TRIALS and a.trials_source
    assert a.needed == ("leaderboard.csv",)  # the jobs are checked as a folder
    assert a.jobs == ("results", f"{bundle}/results")
    assert a.shipped == {"leaderboard": f"{bundle}/leaderboard.csv"}
    assert a.assembled == {"table": f"{res}/bundle/trials.parquet"}
    # the lock copies the leaderboard beside the adapter's table: the contestants read
    # that copy, a declared output of the lock
    assert a.copied == {"leaderboard": f"{res}/bundle/leaderboard.csv"}
    assert a.recompute_inputs() == {
        "lock": f"{res}/lock/lock.json",
        "table": f"{res}/bundle/trials.parquet",
        "leaderboard": f"{res}/bundle/leaderboard.csv",
    }
    assert a.lock_inputs() == {
        "leaderboard": f"{bundle}/leaderboard.csv",
        "table": f"{res}/bundle/trials.parquet",
    }
    assert a.read_dir == f"{res}/bundle" and a.lock_bundle == bundle
    assert a.lock_assembled == ("--assembled", f"{res}/bundle")
    assert a.adapt_args == ("--duplicates", "once", "--min-tries", "5")
    assert a.source_jobs == "results" and a.source_format == "tb-run-v1"
    assert a.compare_args == ()  # compare: null
    assert len(a.run_files) == 12  # trials contract section 5: twelve files a run
    assert a.final_outputs()[0] == f"{res}/census.txt" and a.final_outputs()[-1] == f"{res}/annex"


def test_a_registry_arm_reads_the_shipped_bundle() -> None:
    a = _arm("skillsbench-registry")
    bundle = "../shared/bundles/skillsbench-registry"
    assert a.kind is TRIALS and not a.trials_source
    assert a.jobs is None and a.assembled == {} and a.copied == {}
    assert a.read_dir == a.lock_bundle == bundle
    assert set(a.roles) == {"registry", "leaderboard"}
    assert a.control_inputs()["table"] == a.shipped["table"] == f"{bundle}/registry.parquet"


def test_every_optional_compare_key_is_its_own_pair_of_arguments() -> None:
    path = ROOT / "prereg" / "benchflow-sample.yaml"
    _, doc = load_checked(path)
    optional = {
        "difference": "B-A",
        "unit": "points",
        "reward": "regraded",
        "broken": "exclude_trial",
        "alpha": 0.01,
        "power": 0.9,
    }
    doc = {**doc, "compare": {**doc["compare"], **optional}}
    args = arm_record.compare_args(TRIALS.entry("parse")(doc, str(path)))
    # the compare block of prereg/benchflow-sample.yaml, written out by hand
    assert args[:10] == (
        "skills",
        "no_skills",
        "--denominator",
        "attempted",
        "--k",
        "1,5",
        "--seed",
        str(doc["seed"]),
        "--draws",
        "10000",
    )
    assert args[10:12] == (
        "--under-study",
        "task_source,task_checksum,timeout_multiplier,force_build",
    )
    assert args[12:] == (
        "--difference",
        "B-A",
        "--unit",
        "points",
        "--reward",
        "regraded",
        "--broken",
        "exclude_trial",
        "--alpha",
        "0.01",
        "--power",
        "0.9",
    )


def test_the_arm_is_frozen() -> None:
    a = _arm("config")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.res = "elsewhere"  # type: ignore[misc]


def test_a_universe_table_is_a_bundle_file_the_lock_and_the_fetch_take() -> None:
    # a measured column of prereg/demo.yaml given a universe read from a table of the
    # bundle (docs/contract.md, Recipes): the lock's role universe:<file>
    kind, doc = load_checked(ROOT / "prereg" / "demo.yaml")
    column = next(iter(doc["columns"]["measured"]))
    spec = {
        **doc["columns"]["measured"][column],
        "denominator": {
            "universe": {
                "column": "instance_id",
                "ids": {"file": "universe.parquet", "column": "instance_id"},
                "missing": "as_null",
            }
        },
    }
    doc = {**doc, "columns": {**doc["columns"], "measured": {column: spec}}}
    a = arm_record.build({"arm": "u", "bundle": "b"}, kind, kind.entry("parse")(doc, "demo.yaml"))
    assert a.roles["universe:universe.parquet"] == ("b/universe.parquet", None)
    assert a.fetched == ("leaderboard.parquet", "instances.parquet", "universe.parquet")
    assert a.needed == ("leaderboard.parquet", "instances.parquet")


def test_the_universe_role_is_the_locks() -> None:
    from audit.cells import universe

    assert arm_record.UNIVERSE_ROLE == universe.ROLE
