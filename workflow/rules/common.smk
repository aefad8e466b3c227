from pathlib import Path

import yaml
from snakemake.utils import validate


validate(config, schema="../schemas/config.schema.yaml", set_default=False)

SRC = workflow.basedir  # the repository: packages and environments live here
ARM = config["arm"]
RES = f"results/{ARM}"
BUNDLE = config["bundle"].rstrip("/")
IMPLS = ["pandas", "pyarrow"]
RUNS = [1, 2]

with open(config["prereg"], encoding="utf-8") as _f:
    # Only names are read here (bundle files, controls); the lock rule checks
    # the prereg's hash and validates it before anything uses the method.
    _PREREG = yaml.safe_load(_f) or {}
BUNDLE_FILES = {
    "leaderboard": _PREREG.get("bundle", {}).get("leaderboard", "leaderboard.parquet"),
    "instances": _PREREG.get("bundle", {}).get("instances", "instances.parquet"),
}
CONTROLS = sorted(_PREREG.get("controls") or {})


wildcard_constraints:
    impl="pandas|pyarrow",
    run=r"\d+",
    control="|".join(CONTROLS) if CONTROLS else "(?!)",


def bundle_file(role):
    return f"{BUNDLE}/{BUNDLE_FILES[role]}"


def impl_python(impl):
    """The interpreter of a contestant's own environment (see rule impl_env)."""
    return f"{SRC}/.venvs/impl-{impl}/bin/python"


def run_dir(impl, run):
    return f"{RES}/recompute/{impl}/run{run}"


def get_final_output():
    return [
        f"{RES}/census.txt",
        f"{RES}/controls.md",
        f"{RES}/ledger-receipt.json",
    ]


def bundle_dir(wildcards, input):
    """The bundle folder, derived from the bundle files a rule takes as input."""
    return str(Path(input.leaderboard).parent)


def src(wildcards):
    return SRC
