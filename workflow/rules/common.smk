# A leaderboard arm (cells v1, docs/contract.md): the prereg has no `kind`. What
# every arm shares (config, seat, prereg, kind) is read first, in arm.smk.
import json
import shlex
from pathlib import Path

import yaml


HF_URI = BUNDLE if BUNDLE.startswith("hf://") else None  # fetched by the rule fetch_hf
if HF_URI:
    BUNDLE = f"{RES}/bundle/hf"
RUN_FILES = ["cells", "census", "reproduce", "chance", "nulls", "null_hist"]  # a recompute run's files
BUNDLE_FILES = {
    "leaderboard": _PREREG.get("bundle", {}).get("leaderboard", "leaderboard.parquet"),
    "instances": _PREREG.get("bundle", {}).get("instances", "instances.parquet"),
}
CONTROLS = sorted(_PREREG.get("controls") or {})


# Null draws run in NULL_SHARDS jobs per recompute run, shard i drawing null_range(i).
include: "null_shards.smk"


check_bundle(
    BUNDLE, BUNDLE_FILES.values(), built_by_rule=BUNDLE if HF_URI else "results/demo-bundle"
)
# An amendment (prereg key amends): its parent arm, checked before any job.
PARENT = check_amends(
    PREREG,
    _PREREG,
    ARM,
    {role: (f"{BUNDLE}/{name}", None) for role, name in BUNDLE_FILES.items()},
)
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
    control="|".join(CONTROLS) if CONTROLS else "(?!)",


def bundle_file(role):
    return f"{BUNDLE}/{BUNDLE_FILES[role]}"


def recompute_nulls(impl):
    """The null's files of a recompute run, as outputs of the recompute that draws them."""
    if not DRAWS_IN_RECOMPUTE:
        return {}
    run = f"{RES}/recompute/{impl}/run{{run}}"
    return {"nulls": f"{run}/nulls.csv", "hist": f"{run}/null_hist.csv"}


def contestant_command(impl):
    """The contestant's entry for a leaderboard arm (the shard commands, null_draws.smk)."""
    return ["-m", f"impl_{impl}"]


def run_dir(impl, run):
    return f"{RES}/recompute/{impl}/run{run}"


def event_files():
    """The event files the seal chains, in the DAG's order (docs/seal.md)."""
    out = [f"{RES}/events/lock.json"]
    for c in CONTROLS:
        out += [f"{RES}/controls/{c}/stamp.json", f"{RES}/events/perturb-{c}.json"]
    return out + [f"{RES}/events/outputs.json"]


def get_final_output():
    return [
        f"{RES}/census.txt",
        f"{RES}/controls.md",
        f"{RES}/annex",
    ]


def bundle_dir(wildcards, input):
    """The bundle folder, derived from the bundle files a rule takes as input."""
    return str(Path(input.leaderboard).parent)

