# A trials arm (docs/trials-contract.md): the prereg says `kind: trials`. Same machinery as
# the leaderboard arm: lock, two contestants twice each, agreement, census, ledger,
# report, annex. Paths under results/<arm>/ as in the Snakefile, plus
#   bundle/trials.parquet, bundle/adapter.json   the adapter's trial table (trials source)
#   recovery.csv, recovery_rows.csv, intervals.csv, entries.csv, census_rows.csv   the trial census
#   settings/                                    the settings census (trials source)
#   compare/                                     compare-runs (when the prereg has `compare`)
#   recompute/<impl>/run<n>/reproduce.csv, null-draws/<shard>.csv   the null's table and shards
import json
import shlex
from pathlib import Path

import yaml


# the null's shards (section 9.1): their number and ranges, as for a leaderboard arm
include: "null_shards.smk"


SOURCE = _PREREG["source"]
LEADERBOARD = _PREREG.get("leaderboard")
COMPARE = _PREREG.get("compare")
IS_TRIALS_SOURCE = SOURCE["kind"] == "trials"
# The folder the contestants read: the shipped bundle (registry), or the one the
# pipeline assembles from the adapter's output (trials source).
READ_DIR = f"{RES}/bundle" if IS_TRIALS_SOURCE else BUNDLE
_needed = [] if IS_TRIALS_SOURCE else [SOURCE["table"]]
_needed += [LEADERBOARD["table"]] if LEADERBOARD else []
check_bundle(BUNDLE, _needed, built_by_rule=None)
if IS_TRIALS_SOURCE and not Path(BUNDLE, SOURCE["jobs"]).is_dir():
    refuse("missing_file", f"{BUNDLE}/{SOURCE['jobs']}", "no jobs directory in the bundle folder")
# An amendment (prereg key amends): its parent arm, checked before any job.
_roles = {} if IS_TRIALS_SOURCE else {"registry": (f"{BUNDLE}/{SOURCE['table']}", None)}
if LEADERBOARD:
    _roles["leaderboard"] = (f"{BUNDLE}/{LEADERBOARD['table']}", LEADERBOARD.get("types"))
_jobs = (SOURCE["jobs"], f"{BUNDLE}/{SOURCE['jobs']}") if IS_TRIALS_SOURCE else None
PARENT = check_amends(PREREG, _PREREG, ARM, _roles, _jobs)
check_locked_bundle(LOCKED, ARM, _roles, _jobs)  # arm_locked: the locked content never changes
if LOCKED is None and not IS_TRIALS_SOURCE:  # a control's entry (bad_prereg), before the lock
    guard(preflight.check_registry_entries, _PREREG, PREREG, BUNDLE)
# what the rule versus writes (workflow/rules/versus.smk); none for an arm amending nothing
VERSUS = [f"{RES}/versus-{PARENT}.csv", f"{RES}/versus-{PARENT}.json"] if PARENT else []
check_writable(RES)  # unwritable: before any job, nothing removed
check_clock(RES, [PREREG, *(f"{BUNDLE}/{n}" for n in _needed)])  # clock_skew
hold_run_lock()  # one run per folder; a killed run resumes with the usual command
check_envs(IMPLS)  # an environment that lost files is synced again
TRIAL_FILES = [
    "tasks",
    "entries",
    "cells",
    "census",
    "recovery",
    "recovery_rows",
    "nulls",
    "null_hist",
    "runs",
    "pass_k",
    "pass_k_tasks",
    "reproduce",  # the null's table (section 9.1), written by every recompute
]
if _PREREG.get("ranks"):  # declared (section 17): the contestants write the rank files too
    TRIAL_FILES += ["ranks", "rank_pairs"]
RUN_FILES = TRIAL_FILES  # a recompute run's files (rule same_runs)


wildcard_constraints:
    impl="pandas|pyarrow",
    run=r"\d+",
    shard=r"\d+",


def trials_module(impl):
    """The contestant's trials entry, as the contract names it (section 5)."""
    return ["-m", f"impl_{impl}", "trials"]


contestant_command = trials_module  # the recompute's, controls' and shards' entry


def source_inputs(wildcards):
    """What the contestants read, besides the locked prereg."""
    files = {"lock": f"{RES}/lock/lock.json"}
    if IS_TRIALS_SOURCE:
        files["table"] = f"{RES}/bundle/trials.parquet"
    else:
        files["table"] = locked_input(f"{BUNDLE}/{SOURCE['table']}")
    if LEADERBOARD:
        files["leaderboard"] = locked_input(f"{BUNDLE}/{LEADERBOARD['table']}")
    return files


recompute_inputs = source_inputs  # what a recompute reads (recompute.smk)


def recompute_bundle(wildcards, input):
    """The folder a recompute reads: the assembled bundle, or the shipped one."""
    return READ_DIR


def referee_outputs():
    out = [f"{RES}/census.json", f"{RES}/intervals.csv", f"{RES}/census_rows.csv"]
    if IS_TRIALS_SOURCE:
        out += [f"{RES}/settings/settings.csv", f"{RES}/settings/settings_all.csv"]
    if COMPARE:
        out += [f"{RES}/compare/pairs.csv", f"{RES}/compare/compare.json"]
    return out


def get_final_output():
    return [f"{RES}/census.txt", f"{RES}/annex"]


# What the shared stage rules (lock.smk, census.smk, annex.smk) read and write on a
# trials arm.
def lock_inputs(wildcards):
    return {k: v for k, v in source_inputs(wildcards).items() if k != "lock"}


LOCK_BUNDLE = BUNDLE
LOCK_ASSEMBLED = ["--assembled", f"{RES}/bundle"] if IS_TRIALS_SOURCE else []
CENSUS_OUTPUTS = {
    "txt": f"{RES}/census.txt",
    "json": f"{RES}/census.json",
    "intervals": f"{RES}/intervals.csv",
    "recovery": f"{RES}/recovery.csv",
    "entries": f"{RES}/entries.csv",
    "rows": f"{RES}/census_rows.csv",
    "recomputed_only": f"{RES}/recomputed_only.csv",
    "cells": f"{RES}/census_cells.csv",  # the contestants' census.csv, as the seal copies it
}
RECORDED_OUTPUTS = [
    *([f"{RES}/bundle/adapter.json"] if IS_TRIALS_SOURCE else []),
    *expand(f"{RES}/recompute/{{impl}}/run{{run}}/{{f}}.csv", impl=IMPLS, run=RUNS, f=TRIAL_FILES),
    f"{RES}/agreement.json",
    *referee_outputs(),
    *VERSUS,
]
CONTROLS_MD = [f"{RES}/controls.md"] if CONTROLS else []
REPORT_INPUTS = {"referee": referee_outputs()}
REPORT_OUTPUTS = {
    "md": f"{RES}/report/report.md",
    "html": f"{RES}/report/report.html",
    # the plots (audit/report/trials.py FIGURES), each written even when it has no data
    "plots": expand(
        f"{RES}/report/{{plot}}.svg",
        plot=["task_rewards", "intervals", "null_histograms", "settings"],
    ),
}


if _PREREG.get("ranks"):  # declared only (section 17; audit/ranks/record.py)
    REPORT_INPUTS["ranks"] = f"{RES}/recompute/pandas/run1/ranks.csv"
    REPORT_OUTPUTS["ranks"] = f"{RES}/report/ranks.svg"


# What the controls (controls.smk) read and rerun on a trials arm: the trial table
# (the adapter's, or the registry), and the contestants' entries and tasks.
def control_source(wildcards):
    return {"table": source_inputs(wildcards)["table"], "lock": f"{RES}/lock/lock.json"}


def control_source_args(wildcards, input):
    return ["--table", input.table]


CONTROL_BUNDLE = [SOURCE["table"]]  # the file a control perturbs, as the contestants read it
CONTROL_RUN_FILES = ["entries", "tasks"]
