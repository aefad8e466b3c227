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
    # Only the bundle's file names are read here; the lock rule checks the
    # prereg's hash and validates it before anything uses the method.
    _BUNDLE_FILES = (yaml.safe_load(_f) or {}).get("bundle", {})


wildcard_constraints:
    impl="pandas|pyarrow",
    run=r"\d+",


def bundle_file(role):
    return f"{BUNDLE}/{_BUNDLE_FILES.get(role, role + '.parquet')}"


def impl_python(impl):
    """The interpreter of a contestant's own environment (see rule impl_env)."""
    return f"{SRC}/.venvs/impl-{impl}/bin/python"


def run_dir(impl, run):
    return f"{RES}/recompute/{impl}/run{run}"


def get_final_output():
    return [
        f"{RES}/census.txt",
        f"{RES}/ledger-receipt.json",
    ]


def bundle_dir(wildcards, input):
    """The bundle folder, derived from the bundle files a rule takes as input."""
    return str(Path(input.leaderboard).parent)


def src(wildcards):
    return SRC
