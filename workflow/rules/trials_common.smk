# A trials arm (docs/trials-contract.md): config `kind: trials`. Same machinery as
# the leaderboard arm: lock, two contestants twice each, agreement, census, ledger,
# report, annex. Paths under results/<arm>/ as in the Snakefile, plus
#   bundle/trials.parquet, bundle/adapter.json   the adapter's trial table (trials source)
#   recovery.csv, recovery_rows.csv, intervals.csv, entries.csv   the trial census
#   settings/                                    the settings census (trials source)
#   compare/                                     compare-runs (when the prereg has `compare`)
import json
import shlex
from pathlib import Path

import yaml
from snakemake.utils import validate


include: "preflight.smk"


check_config(config)
validate(config, schema="../schemas/config.schema.yaml", set_default=False)

SRC = workflow.basedir
ARM = config["arm"]
RES = f"results/{ARM}"
BUNDLE = config["bundle"].rstrip("/")
IMPLS = ["pandas", "pyarrow"]
RUNS = [1, 2]
SEAT = config["seat"]
if SEAT == "second":
    ANNEX, PREREG, PREREG_BLAKE3 = second_seat(config)
    EXPECT_BUNDLE = ["--expect-bundle", f"{ANNEX}/lock/lock.json"]  # arguments, each quoted
else:
    PREREG = config["prereg"]
    PREREG_BLAKE3 = config["prereg_blake3"]
    EXPECT_BUNDLE = []

check_prereg(PREREG, PREREG_BLAKE3)
check_arm(RES, ARM, PREREG_BLAKE3)  # arm_locked: an arm's method never changes
from audit.errors import AuditError as _AuditError
from audit.prereg import load_yaml as _read_prereg
from audit.trials_prereg import load as _load_trials_prereg

try:
    # The trials lock's own reader and checks (audit/trials_prereg.py): a prereg
    # it would refuse is one line and exit 2 here, before any job. Names only.
    if _read_prereg(PREREG).get("kind") != "trials":
        refuse("bad_config", PREREG, "config kind is trials but the prereg is not a trials-v1 prereg")
    _PREREG = _load_trials_prereg(PREREG)
except _AuditError as _e:
    refuse(_e.kind, _e.path, _e.detail)
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
PARENT = check_amends(
    PREREG,
    _PREREG,
    ARM,
    _roles,
    (SOURCE["jobs"], f"{BUNDLE}/{SOURCE['jobs']}") if IS_TRIALS_SOURCE else None,
)
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
]


wildcard_constraints:
    impl="pandas|pyarrow",
    run=r"\d+",


def impl_python(impl):
    return f"{SRC}/.venvs/impl-{impl}/bin/python"


def trials_module(impl):
    """The contestant's trials entry: `-m impl_X.trials` when that module exists,
    else the contract's `-m impl_X trials` (section 5)."""
    base = Path(SRC, f"impl_{impl}")
    if (base / "trials.py").is_file() or (base / "trials" / "__main__.py").is_file():
        return ["-m", f"impl_{impl}.trials"]
    return ["-m", f"impl_{impl}", "trials"]


def source_inputs(wildcards):
    """What the contestants read, besides the locked prereg."""
    files = {"lock": f"{RES}/lock/lock.json"}
    if IS_TRIALS_SOURCE:
        files["table"] = f"{RES}/bundle/trials.parquet"
    else:
        files["table"] = f"{BUNDLE}/{SOURCE['table']}"
    if LEADERBOARD:
        files["leaderboard"] = f"{BUNDLE}/{LEADERBOARD['table']}"
    return files


def referee_outputs():
    out = [f"{RES}/census.json", f"{RES}/intervals.csv"]
    if IS_TRIALS_SOURCE:
        out += [f"{RES}/settings/settings.csv", f"{RES}/settings/settings_all.csv"]
    if COMPARE:
        out += [f"{RES}/compare/pairs.csv", f"{RES}/compare/compare.json"]
    return out


def get_final_output():
    return [f"{RES}/census.txt", f"{RES}/annex"]


SEAT_KEY = config.get("seat_key", "")  # empty: the default key path (docs/seal.md)


def src(wildcards):
    return SRC
