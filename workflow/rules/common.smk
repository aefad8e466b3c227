# What every rule names, read and checked once, before any job; functions and names
# only, no rules. The config (against its schema), the seat, the prereg (present, its
# blake3 as expected, the arm not locked under another), the arm's kind, which the
# prereg alone decides (`kind: trials` for trials v1, docs/trials-contract.md; absent
# for a leaderboard, cells v1, docs/contract.md; the registry of kinds is
# audit/kinds/arm_kind.py), and the arm itself (audit/kinds/arm.py): the bundle files
# the lock hashes and the contestants read, the run files, the outputs of the census,
# the report and the record. Every job is handed the kind (--kind); none asks the
# prereg again. The rules of a kind the arm is not are never requested. Last, the run's
# start and end (onstart, onsuccess, onerror).
from pathlib import Path

from snakemake.utils import min_version, validate

from audit.kinds import arm as arm_record
from audit.core.console import export_job_output

min_version("9.0")


configfile: "config/config.yaml"  # relative to the working directory (Snakemake)


report: "../report/workflow.rst"


include: "preflight.smk"


check_config(config)  # bad_config, one line and exit 2, before snakemake's own check
validate(config, schema="../schemas/config.schema.yaml", set_default=False)

SRC = workflow.basedir  # the repository: packages and environments live here
IMPLS = list(arm_record.IMPLS)
RUNS = list(arm_record.RUNS)
# The order jobs start in when more are ready than cores (a rule's priority, the
# highest first, by the greedy scheduler: profiles/default): the lock, which every
# job waits for; the controls' prediction and perturbation, the head of the longest
# chain; the contestants' environments and each contestant's first run, which the
# controls' check and the report's figures wait for; the controls' reruns; last the
# rest, the second runs among them, read last (the same-runs proof, the agreement).
# Measured on the real bundle: docs/performance.md.
LOCK_FIRST = 4
PREDICT_FIRST = 3
FIRST_RUNS_FIRST = 2
CONTROLS_FIRST = 1
SEAT = config["seat"]
SEAT_KEY = config.get("seat_key", "")  # empty: the default key path (docs/seal.md)
# A second seat reruns the first seat's locked method, on a bundle that must match
# the first seat's lock (checked by the lock rule): its annex, prereg and blake3.
PREREG, PREREG_BLAKE3, EXPECT_BUNDLE = seat_prereg(config)

check_prereg(PREREG, PREREG_BLAKE3)  # missing_file, prereg_changed: before any job
RESULTS = arm_record.RESULTS  # every arm's folder; an amendment's parent is sealed here too
LOCKED = check_arm(f"{RESULTS}/{config['arm']}", config["arm"], PREREG, PREREG_BLAKE3)
# The lock's own reader and checks for the prereg's kind (audit/kinds/arm_kind.py): a
# prereg the lock would refuse is one line and exit 2 here, before any job.
# The checked prereg parsed once into its kind's frozen record, which the arm, the
# checks before the lock and every rule read; the document itself is not kept.
KIND, RECORD = prereg_record(PREREG)
A = arm_record.build(config, KIND, RECORD)  # a frozen record
ARM, RES, BUNDLE = A.name, A.res, A.bundle
CONTROLS = list(A.controls)
RUN_FILES = list(A.run_files)  # a recompute run's files (rules recompute, same_runs)


# Null draws run in NULL_SHARDS jobs per recompute run, shard i drawing null_range(i).
include: "null_shards.smk"


check_bundle(BUNDLE, A.needed, A.built_by_rule, A.jobs)  # missing_file
# An amendment (prereg key amends): its parent arm, checked before any job.
PARENT = check_amends(PREREG, RECORD.amends, ARM, A.roles, A.jobs)
check_locked_bundle(LOCKED, ARM, A.roles, A.jobs)  # arm_locked: the locked content never changes
check_seat_bundle(EXPECT_BUNDLE, A.roles, A.jobs)  # bundle_changed: a second seat's, as the lock
check_before_lock(LOCKED, KIND, RECORD, PREREG, BUNDLE, A.built_by_rule)  # ... bad_prereg, control
# a trials arm's tables and compare-runs' input (missing_column ... bad_value, unknown_run,
# no_pairs, settings_differ) and its controls (control), before the lock
check_trials_before_lock(LOCKED, KIND, RECORD, BUNDLE)
VERSUS = A.versus(PARENT)  # what the rule versus writes; none for an arm amending nothing
check_writable(RES)  # unwritable: before any job, nothing removed
check_clock(RES, [PREREG, *(f"{BUNDLE}/{n}" for n in A.needed)])  # clock_skew
hold_run_lock()  # one run per folder; a killed run resumes with the usual command
check_envs(IMPLS)  # an environment that lost files is synced again
# What a job prints goes to its log (tee) and, only with SECONDSEAT_VERBOSE=1 or
# --verbose, to the terminal too; the terminal otherwise shows one line per stage and
# the summary (audit/core/console.py, the logger plugin profiles/default names). The
# rules name it through the environment (a job that has none writes to /dev/null), so
# their commands and params are the same words in either mode: switching modes
# reruns nothing.
export_job_output(terminal_verbose())


wildcard_constraints:
    impl="pandas|pyarrow",
    run=r"\d+",
    shard=r"\d+",
    parent=r"[a-z0-9][a-z0-9._-]*",


def get_final_output():
    """What `snakemake` builds when asked for nothing: the census, the controls' table
    when the arm has controls, and the annex, which waits for the rest (the report, a
    trials arm's comparison and settings census, an amendment's versus, the self-test
    when the prereg asks for it)."""
    return A.final_outputs()


def impl_python(impl):
    """The interpreter of a contestant's own environment (made by impl_env)."""
    return f"{SRC}/.venvs/impl-{impl}/bin/python"


def src(wildcards):
    return SRC


def contestant_command(impl):
    """The contestant's entry for the arm's kind: `-m impl_<x>` [`trials`]."""
    return KIND.contestant_command(impl)


def shipped(files):
    """Input files, each of the shipped bundle marked locked_input (preflight.smk)."""
    return {k: locked_input(v) if v in A.shipped.values() else v for k, v in files.items()}


def lock_inputs(wildcards):
    """What the lock reads besides the prereg: the bundle files it hashes."""
    return shipped(A.lock_inputs())


def jobs_content(wildcards):
    """What the jobs folder holds (audit/files.py folder_blake3): an edited or added file
    runs the adapter again, though the folder's own time changes only when an entry
    directly in it does; its bytes alone, so checking it out again does not. A locked
    arm's from its lock's listing, not hashed again: preflight refused any other files."""
    from audit.files import folder_blake3, listing_blake3

    if LOCKED is not None and LOCKED.jobs is not None:
        return listing_blake3(LOCKED.jobs)
    return folder_blake3(f"{BUNDLE}/{A.source_jobs}")


def recompute_inputs(wildcards):
    """What a recompute reads besides the locked prereg (recompute.smk)."""
    return shipped(A.recompute_inputs())


def recompute_bundle(wildcards, input):
    """The folder a recompute reads: the shipped bundle, or the one the run assembles."""
    return A.read_dir


def control_source(wildcards):
    """What the controls read (controls.smk): the locked bundle, or the trial table."""
    return shipped(A.control_inputs())


def control_source_args(wildcards, input):
    return A.control_source_args(input)


def control_files(*names):
    """Each control's folder, with these files in it (one list over every control)."""
    return expand(f"{RES}/controls/{{control}}/{{f}}", control=CONTROLS, f=names)


def control_args(wildcards):
    return [a for c in CONTROLS for a in ("--control", c)]


def controls_folder(stamps):
    """results/<arm>/controls, from the controls' stamps a rule reads or writes."""
    return str(Path(stamps[0]).parent.parent)


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


def report_outputs(outputs):
    """The report's files (or its figures'); those Snakemake's own report shows carry
    their caption."""
    return {k: captioned(v, A.report_captions.get(k)) for k, v in outputs.items()}


def captioned(path, c):
    """A report output, with its caption in Snakemake's report (--report) when it has one."""
    return path if c is None else report(path, c.caption, category=c.category, labels={"what": c.what})


# What the stage rules (lock.smk, census.smk, controls.smk, annex.smk) read and write.
LOCK_BUNDLE = A.lock_bundle  # the folder the lock hashes
LOCK_ASSEMBLED = list(A.lock_assembled)  # a trials source's assembled folder
LOCK_COPIES = list(A.copied.values())  # shipped files the lock copies where they are read
LOCK_JUDGED = lock_judged(KIND, RECORD, BUNDLE, A.built_by_rule)  # by preflight
CENSUS_OUTPUTS = A.census_outputs
RECORDED_OUTPUTS = [*A.recorded_outputs, *VERSUS]
CONTROLS_MD = list(A.controls_md)
CONTROL_BUNDLE = list(A.control_bundle)  # the files of a control's perturbed bundle
CONTROL_RUN_FILES = list(A.control_run_files)  # what a control's rerun writes and compares
REPORT_INPUTS = A.report_inputs
REPORT_OUTPUTS = report_outputs(A.report_outputs)
FIGURE_INPUTS = A.figure_inputs  # none: the report draws its figures itself
FIGURE_OUTPUTS = report_outputs(A.figure_outputs)
HF_URI = A.hf_uri  # a bundle on the Hugging Face Hub, fetched by the rule fetch_hf


# The run's start and end.
onstart:
    guard_planned()  # nothing rewrites a locked or sealed arm (preflight.smk)


show_summary_on_nothing_to_do()  # the end of a run: the answer, report, annex head


onsuccess:
    print_run_summary()
    release_scheduler_timers()


onerror:
    interrupted_exit()  # Ctrl-C: one line and exit 130
    stamp_refused_exit()  # a stamp the TSA refused when due: its one line, exit 2
    input_refused_exit()  # input a job refused: its one line (and what to do), exit 2
    release_scheduler_timers()
