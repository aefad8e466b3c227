# What every arm shares, read once before either set of rules. The config, checked
# against its schema, the seat, the prereg (present, its blake3 as expected, the
# arm not locked under another), and the arm's kind, which the locked prereg
# alone decides (`kind: trials` for trials v1, docs/trials-contract.md; absent
# for a leaderboard, cells v1, docs/contract.md). The config has no kind.
from pathlib import Path

from snakemake.utils import validate

from audit.core.console import export_job_output


include: "preflight.smk"


check_config(config)  # bad_config, one line and exit 2, before snakemake's own check
validate(config, schema="../schemas/config.schema.yaml", set_default=False)

SRC = workflow.basedir  # the repository: packages and environments live here
ARM = config["arm"]
RESULTS = "results"  # every arm's folder; an amendment's parent is sealed here too
RES = f"{RESULTS}/{ARM}"
BUNDLE = config["bundle"].rstrip("/")
IMPLS = ["pandas", "pyarrow"]
RUNS = [1, 2]
SEAT = config["seat"]
SEAT_KEY = config.get("seat_key", "")  # empty: the default key path (docs/seal.md)
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
LOCKED = check_arm(RES, ARM, PREREG, PREREG_BLAKE3)  # arm_locked: an arm's method never changes
# The lock's own reader and checks for the prereg's kind (audit/core/arm_kind.py): a
# prereg the lock would refuse is one line and exit 2 here, before any job. The
# rules read only names from it, and the lock checks it again.
KIND, _PREREG = prereg_kind(PREREG)
CONTROLS = sorted(_PREREG.get("controls") or {})  # the arm's controls (controls.smk)
# What a job prints goes to its log (tee) and, only with SECONDSEAT_VERBOSE=1 or
# --verbose, to the terminal too; the terminal otherwise shows one line per stage and
# the summary (audit/core/console.py, the logger plugin profiles/default names). The
# rules name it through the environment (a job that has none writes to /dev/null), so
# their commands and params are the same words in either mode: switching modes
# reruns nothing.
export_job_output(terminal_verbose())


def impl_python(impl):
    """The interpreter of a contestant's own environment (made by impl_env)."""
    return f"{SRC}/.venvs/impl-{impl}/bin/python"


def src(wildcards):
    return SRC


def event_files(controls):
    """The event files the seal chains, in the DAG's order (docs/seal.md): the lock,
    every control's stamp, every perturbation (built only once all are stamped),
    the record of the outputs."""
    stamps = [f"{RES}/controls/{c}/stamp.json" for c in controls]
    perturbed = [f"{RES}/events/perturb-{c}.json" for c in controls]
    return [f"{RES}/events/lock.json", *stamps, *perturbed, f"{RES}/events/outputs.json"]


def sealed_inputs(controls):
    """Files the seal copies into the annex beside its declared inputs, declared too:
    a rerun killed mid-way removes a job's outputs first, and Snakemake builds a
    missing file again only when a job to run asks for it (never seal it absent)."""
    per_control = ["prediction.csv", "selection.json", "check.csv", "verdict.json"]
    files = [f"{RES}/controls/{c}/{f}" for c in controls for f in per_control]
    files += [f"{RES}/recompute/{i}/run1/{f}.csv" for i in IMPLS for f in RUN_FILES]
    return files + [f"{RES}/recompute/{i}/runs-identical.json" for i in IMPLS]


def control_files(*names):
    """Each control's folder, with these files in it (one list over every control)."""
    return expand(f"{RES}/controls/{{control}}/{{f}}", control=CONTROLS, f=names)


def control_args(wildcards):
    return [a for c in CONTROLS for a in ("--control", c)]


def controls_folder(stamps):
    """results/<arm>/controls, from the controls' stamps a rule reads or writes."""
    return str(Path(stamps[0]).parent.parent)
