import json
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
IMPLS = ["pandas", "pyarrow"]
RUNS = [1, 2]
RUN_FILES = ["cells", "census", "reproduce", "nulls", "null_hist"]  # a recompute run's files

SEAT = config["seat"]
if SEAT == "second":
    # A second seat reruns the first seat's locked method, on a bundle that
    # must match the first seat's lock (checked by the lock rule).
    ANNEX = config["annex"].rstrip("/")
    if not Path(ANNEX, "lock", "lock.json").is_file():
        refuse("missing_file", f"{ANNEX}/lock/lock.json", "not an annex (the config's annex)")
    PREREG = f"{ANNEX}/lock/prereg.yaml"
    with open(f"{ANNEX}/lock/lock.json", encoding="utf-8") as _f:
        PREREG_BLAKE3 = json.load(_f)["prereg"]["blake3"]
    EXPECT_BUNDLE = ["--expect-bundle", f"{ANNEX}/lock/lock.json"]  # arguments, each quoted
else:
    PREREG = config["prereg"]
    PREREG_BLAKE3 = config["prereg_blake3"]
    EXPECT_BUNDLE = []

check_prereg(PREREG, PREREG_BLAKE3)  # missing_file, prereg_changed: before any job
check_arm(RES, ARM, PREREG_BLAKE3)  # arm_locked: an arm's method never changes
with open(PREREG, encoding="utf-8") as _f:
    # Only names are read here (bundle files, controls); the lock rule checks
    # the prereg's hash and validates it before anything uses the method.
    _PREREG = yaml.safe_load(_f) or {}
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
check_bundle(BUNDLE, BUNDLE_FILES.values(), built_by_rule="results/demo-bundle")
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


def get_final_output():
    return [
        f"{RES}/census.txt",
        f"{RES}/controls.md",
        f"{RES}/ledger-receipt.json",
        f"{RES}/annex",
    ]


def bundle_dir(wildcards, input):
    """The bundle folder, derived from the bundle files a rule takes as input."""
    return str(Path(input.leaderboard).parent)


def src(wildcards):
    return SRC
