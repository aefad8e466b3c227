import json
import shlex
from pathlib import Path

import yaml
from snakemake.utils import validate


include: "preflight.smk"


check_config(config)  # bad_config, one line and exit 2, before snakemake's own check
validate(config, schema="../schemas/config.schema.yaml", set_default=False)

SRC = workflow.basedir  # the repository: packages and environments live here
ARM = config["arm"]
RES = f"results/{ARM}"
BUNDLE = config["bundle"].rstrip("/")
HF_URI = BUNDLE if BUNDLE.startswith("hf://") else None  # fetched by the rule fetch_hf
if HF_URI:
    BUNDLE = f"{RES}/bundle/hf"
IMPLS = ["pandas", "pyarrow"]
RUNS = [1, 2]
RUN_FILES = ["cells", "census", "reproduce", "chance", "nulls", "null_hist"]  # a recompute run's files

SEAT = config["seat"]
if SEAT == "second":
    # A second seat reruns the first seat's locked method, on a bundle that
    # must match the first seat's lock (checked by the lock rule).
    ANNEX, PREREG, PREREG_BLAKE3 = second_seat(config)
    EXPECT_BUNDLE = ["--expect-bundle", f"{ANNEX}/lock/lock.json"]  # arguments, each quoted
else:
    PREREG = config["prereg"]
    PREREG_BLAKE3 = config["prereg_blake3"]
    EXPECT_BUNDLE = []

check_prereg(PREREG, PREREG_BLAKE3)  # missing_file, prereg_changed: before any job
check_arm(RES, ARM, PREREG_BLAKE3)  # arm_locked: an arm's method never changes
from audit.errors import AuditError as _AuditError
from audit.prereg import load as _load_prereg

try:
    # The lock's own reader and checks (audit/prereg.py), so that a prereg the
    # lock would refuse is one line and exit 2 here, before any job; only names
    # are read here (bundle files, controls). The lock rule checks it again.
    _PREREG = _load_prereg(PREREG)
except _AuditError as _e:
    refuse(_e.kind, _e.path, _e.detail)
BUNDLE_FILES = {
    "leaderboard": _PREREG.get("bundle", {}).get("leaderboard", "leaderboard.parquet"),
    "instances": _PREREG.get("bundle", {}).get("instances", "instances.parquet"),
}
CONTROLS = sorted(_PREREG.get("controls") or {})
# Null draws run in this many jobs per recompute run (an execution setting, not
# the method: the merged result is the same bytes for any count).
NULL_DRAWS = _PREREG.get("null_draws")
NULL_SHARDS = config.get("null_shards", 1)
if isinstance(NULL_DRAWS, int) and not isinstance(NULL_DRAWS, bool) and NULL_SHARDS > NULL_DRAWS > 0:
    refuse(
        "bad_config",
        _config_source("null_shards"),
        f"at null_shards: {NULL_SHARDS} shards for {NULL_DRAWS} null draws (at most one per draw)",
    )
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


def impl_python(impl):
    """The interpreter of a contestant's own environment (see rule impl_env)."""
    return f"{SRC}/.venvs/impl-{impl}/bin/python"


def null_range(shard):
    """Shard i of NULL_SHARDS draws the contiguous range A:B, sizes differing by at most one."""
    return f"{shard * NULL_DRAWS // NULL_SHARDS}:{(shard + 1) * NULL_DRAWS // NULL_SHARDS}"


def run_dir(impl, run):
    return f"{RES}/recompute/{impl}/run{run}"


SEAT_KEY = config.get("seat_key", "")  # empty: the default key path (docs/seal.md)


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


def src(wildcards):
    return SRC
