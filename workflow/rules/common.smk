# A leaderboard arm (cells v1, docs/contract.md): the prereg has no `kind`. What
# every arm shares (config, seat, prereg, kind) is read first, in arm.smk.
import json
import shlex
from pathlib import Path

import yaml

from audit.cells.universe import ROLE as UNIVERSE_ROLE
from audit.cells.universe import files as universe_files


HF_URI = BUNDLE if BUNDLE.startswith("hf://") else None  # fetched by the rule fetch_hf
if HF_URI:
    BUNDLE = f"{RES}/bundle/hf"
RUN_FILES = ["cells", "census", "reproduce", "chance", "nulls", "null_hist"]  # a recompute run's files
if _PREREG.get("feasibility"):  # declared: the contestants write feasibility.csv too
    RUN_FILES.append("feasibility")
if _PREREG.get("ranks"):  # declared: the contestants write ranks.csv and rank_pairs.csv too
    RUN_FILES += ["ranks", "rank_pairs"]
BUNDLE_FILES = {
    "leaderboard": _PREREG.get("bundle", {}).get("leaderboard", "leaderboard.parquet"),
    "instances": _PREREG.get("bundle", {}).get("instances", "instances.parquet"),
}
# universes declared as tables (docs/contract.md, Recipes): bundle files the lock hashes too
UNIVERSE_ROLES = {f"{UNIVERSE_ROLE}{name}": name for name in universe_files(_PREREG)}


# Null draws run in NULL_SHARDS jobs per recompute run, shard i drawing null_range(i).
include: "null_shards.smk"


check_bundle(
    BUNDLE, BUNDLE_FILES.values(), built_by_rule=BUNDLE if HF_URI else "results/demo-bundle"
)
# An amendment (prereg key amends): its parent arm, checked before any job.
_ROLES = {
    role: (f"{BUNDLE}/{name}", None) for role, name in {**BUNDLE_FILES, **UNIVERSE_ROLES}.items()
}
PARENT = check_amends(PREREG, _PREREG, ARM, _ROLES)
check_locked_bundle(LOCKED, ARM, _ROLES)  # arm_locked: a locked arm's bundle content never changes
if LOCKED is None:  # what the prereg will do with the bundle, before the lock writes anything
    check_inputs(_PREREG, PREREG, BUNDLE)  # unsupported_type, a control's row (bad_prereg)
# what the rule versus writes (workflow/rules/versus.smk); none for an arm amending nothing
VERSUS = [f"{RES}/versus-{PARENT}.csv", f"{RES}/versus-{PARENT}.json"] if PARENT else []
check_writable(RES)  # unwritable: before any job, nothing removed
check_clock(RES, [PREREG, *(f"{BUNDLE}/{n}" for n in BUNDLE_FILES.values())])  # clock_skew
hold_run_lock()  # one run per folder; a killed run resumes with the usual command
check_envs(IMPLS)  # an environment that lost files is synced again


wildcard_constraints:
    impl="pandas|pyarrow",
    run=r"\d+",
    shard=r"\d+",


def bundle_file(role):
    return f"{BUNDLE}/{BUNDLE_FILES[role]}"


def contestant_command(impl):
    """The contestant's entry for a leaderboard arm (the shard commands, null_draws.smk)."""
    return ["-m", f"impl_{impl}"]


def run_dir(impl, run):
    return f"{RES}/recompute/{impl}/run{run}"


def get_final_output():
    return [
        f"{RES}/census.txt",
        f"{RES}/controls.md",
        f"{RES}/annex",
    ]


def bundle_dir(wildcards, input):
    """The bundle folder, derived from the bundle files a rule takes as input."""
    return str(Path(input.leaderboard).parent)


# What the shared stage rules (lock.smk, census.smk, annex.smk) read and write on a
# leaderboard arm.
def lock_inputs(wildcards):
    return {role: locked_input(bundle_file(role)) for role in ("leaderboard", "instances")}


def recompute_inputs(wildcards):
    """What a recompute reads besides the locked prereg (recompute.smk)."""
    return {"lock": f"{RES}/lock/lock.json", **lock_inputs(wildcards)}


recompute_bundle = bundle_dir  # the folder of the bundle files a recompute reads
LOCK_BUNDLE = bundle_dir  # the folder of the bundle files (demo, fetched, or shipped)
LOCK_ASSEMBLED = []
CENSUS_OUTPUTS = {
    "txt": f"{RES}/census.txt",
    "json": f"{RES}/census.json",
    "columns": f"{RES}/census_columns.csv",
    "cells": f"{RES}/census_cells.csv",
    "rows": f"{RES}/census_rows.csv",
}
RECORDED_OUTPUTS = [
    *expand(f"{RES}/recompute/{{impl}}/run{{run}}/{{f}}.csv", impl=IMPLS, run=RUNS, f=RUN_FILES),
    f"{RES}/agreement.json",
    f"{RES}/census.json",
    f"{RES}/census_columns.csv",
    f"{RES}/census_cells.csv",
    f"{RES}/census_rows.csv",
    *expand(
        f"{RES}/controls/{{control}}/{{impl}}/{{f}}.csv",
        control=CONTROLS,
        impl=IMPLS,
        f=["cells", "census", "reproduce"],
    ),
    *expand(f"{RES}/controls/{{control}}/check.csv", control=CONTROLS),
    f"{RES}/controls.csv",
    *VERSUS,
]
CONTROLS_MD = [f"{RES}/controls.md"]


# What the controls (controls.smk) read and rerun on a leaderboard arm: the locked
# bundle, and the contestants' cells, census and null table.
# With ranks declared, a swap's prediction relabels the unperturbed run's rank census
# (controls/ranks_predict.py): the controls read pandas' first run's rank files too.
RANKS_BEFORE = (
    {f: f"{RES}/recompute/pandas/run1/{f}.csv" for f in ("ranks", "rank_pairs")}
    if _PREREG.get("ranks")
    else {}
)


def control_source(wildcards):
    return {"files": f"{RES}/lock/files.json", **lock_inputs(wildcards), **RANKS_BEFORE}


def control_source_args(wildcards, input):
    ranks = ["--ranks", str(Path(input.ranks).parent)] if RANKS_BEFORE else []
    return ["--bundle", bundle_dir(wildcards, input), "--lock", input.files, *ranks]


CONTROL_BUNDLE = [BUNDLE_FILES["leaderboard"], BUNDLE_FILES["instances"]]
CONTROL_RUN_FILES = ["cells", "census", "reproduce", *(["ranks", "rank_pairs"] if RANKS_BEFORE else [])]
REPORT_INPUTS = {
    "columns": f"{RES}/census_columns.csv",
    "cells": f"{RES}/census_cells.csv",
    "hist": f"{RES}/recompute/pandas/run1/null_hist.csv",
    "controls": f"{RES}/controls.csv",
}
REPORT_OUTPUTS = {
    "md": f"{RES}/report/report.md",
    "html": report(
        f"{RES}/report/report.html",
        caption="../report/report.rst",
        category="Report",
        labels={"what": "the whole report"},
    ),
    "census_map": report(
        f"{RES}/report/census_map.svg",
        caption="../report/census_map.rst",
        category="Census",
        labels={"what": "census map"},
    ),
    "nulls": report(
        f"{RES}/report/null_histograms.svg",
        caption="../report/nulls.rst",
        category="Chance",
        labels={"what": "permutation nulls"},
    ),
    "controls": report(
        f"{RES}/report/controls.svg",
        caption="../report/controls.rst",
        category="Controls",
        labels={"what": "predicted against measured"},
    ),
}
if _PREREG.get("ranks"):  # declared only (docs/contract.md, Ranks)
    REPORT_INPUTS["ranks"] = f"{RES}/recompute/pandas/run1/ranks.csv"
    REPORT_OUTPUTS["ranks"] = report(
        f"{RES}/report/ranks.svg",
        caption="../report/ranks.rst",
        category="Ranks",
        labels={"what": "rank intervals and the top row's tie group"},
    )
