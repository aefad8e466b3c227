# Checks made while the workflow is read, before any job runs (so `snakemake -n`
# refuses too): the config against its schema, the prereg's presence and blake3,
# a locked arm's method, seat and bundle content, the bundle's files, the folders
# and the clock. The checks themselves are audit/preflight.py (tested on
# their own, tests/test_preflight.py); this file hands them what Snakemake knows.
# A refusal is one line on stderr, `error[<class>]: <file>: <detail>`, exit
# status 2, and nothing written. The lock rule checks the prereg's hash again when
# it runs, against a change made in between. hold_run_lock() refuses a second run
# while one is alive in the folder, and lets the usual command resume a run that
# was killed.
import os
import sys
from pathlib import Path

from audit import preflight


# Every job is a new Python process. Where PYTHONDONTWRITEBYTECODE is set (some
# CI machines set it), each would compile polars, yaml and the project's own
# modules again as it starts, about 0.7 s a job; the jobs may cache bytecode.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def refuse(kind, file, detail):
    """Stop before any job runs: one line on stderr, exit status 2."""
    print(f"error[{kind}]: {file}: {' '.join(str(detail).split())}", file=sys.stderr)
    sys.exit(2)


def guard(check, *args):
    """A check of audit/preflight.py: its AuditError is one line and exit 2 here."""
    from audit.errors import AuditError

    try:
        return check(*args)
    except AuditError as e:
        refuse(e.kind, e.path, e.detail)


def _own_process():
    """A job Snakemake started as a process of its own (a cluster node, a subprocess)
    belongs to a run that was checked: it checks nothing of the folder."""
    return workflow.remote_exec or workflow.subprocess_exec


def _config_source(key):
    """Where a top-level config key was set: --config, or the last config file naming it."""
    return preflight.config_source(
        key,
        workflow.config_settings.config or {},
        [str(f) for f in workflow.config_settings.configfiles],
        [str(f) for f in workflow.configfiles],
    )


def check_config(cfg):
    """bad_config for the first schema violation (an unknown key is one)."""
    guard(preflight.check_config, cfg, workflow.basedir, _config_source)


def check_prereg(prereg, expected):
    """missing_file / unreadable / prereg_changed, as the lock would say, but before any job."""
    guard(preflight.check_prereg, prereg, expected)


def check_arm(res, arm, prereg, blake3_now):
    """arm_locked: an arm holds one method, read by one seat (audit/preflight.py).
    Once results/<arm>/lock/lock.json exists, a run whose prereg has another blake3,
    or that reads it from another file (another seat), is refused before any job, so
    the arm's lock, ledger and annex are never replaced. Returns the lock, or None."""
    from audit.preflight import check_locked_arm

    return guard(check_locked_arm, res, arm, prereg, blake3_now)


def check_locked_bundle(locked, arm, roles, jobs=None):
    """arm_locked: bundle content other than the locked arm's (by content digest), before any job."""
    from audit import preflight

    if locked is not None:
        guard(preflight.check_locked_bundle, locked, arm, roles, jobs)


def check_seat_bundle(expect_bundle, roles, jobs=None):
    """bundle_changed: a second seat's bundle content other than the first seat's lock (the
    lock's own comparison, audit/preflight.py), before any job. ``expect_bundle``: the
    lock's arguments (seat_prereg), empty for a first seat."""
    from audit import preflight

    if expect_bundle:
        guard(preflight.check_seat_bundle, expect_bundle[-1], roles, jobs)


def locked_input(path):
    """A file of a locked arm's inputs, which check_arm and check_locked_bundle found with
    the bytes the lock hashed: its time alone (a bundle downloaded again, a prereg
    checked out again) never runs a job again (Snakemake's ancient)."""
    return ancient(path) if LOCKED is not None else path


def check_before_lock(locked, kind, record, prereg, bundle, built_by_rule):
    """An arm not yet locked: what its prereg will do with its shipped bundle (column types,
    values, the universe tables, the rows or entries its controls name; audit/preflight.py),
    then the rows its controls' own code chooses, before the lock. ``record``: the checked
    prereg's frozen record (common.smk). The controls' choice not in a job of its own:
    the run that started it checked it. A bundle a rule builds (the demo's, a Hub fetch)
    is the lock's to judge, with the same checks and the controls' choice, once built: a
    copy an earlier run left may be built again."""
    if locked is None and bundle != built_by_rule:
        guard(preflight.check_before_lock, kind, record, prereg, bundle)
        if not _own_process():
            guard(preflight.check_control_targets, kind, record, bundle)


def lock_judged(kind, record, bundle, built_by_rule):
    """The lock's --judged, when preflight judges the bundle's tables as the workflow is
    read (a shipped bundle; a trials source's jobs folder within its bound), so the lock
    does not judge them again; otherwise the lock judges them before it writes anything.
    From the inputs alone (never whether this run is locked), so the lock's command is
    the same in every run of the arm."""
    if kind.name == "trials":
        from audit.trials.preflight_source import judged_at_preflight

        judged = judged_at_preflight(record, bundle)
    else:
        judged = bundle != built_by_rule
    return ["--judged"] if judged else []


def check_trials_before_lock(locked, kind, record, bundle):
    """A trials arm not yet locked: its leaderboard and its registry table, or the trial
    table the adapter assembles (in memory, up to a bound), by the contestants' rules,
    then compare-runs' refusals of that table (audit/trials/preflight_source.py), then
    its controls' own prediction from that table (audit/preflight.py), before the lock.
    Not in a job of its own: the run that started it checked it."""
    if locked is None and kind.name == "trials" and not _own_process():
        guard(preflight.check_trials_before_lock, record, bundle)


def guard_planned():
    """arm_locked / arm_sealed: once the DAG is built and before its first job, a run that
    would lock a locked arm again, or run anything in a sealed one, is refused
    (audit/preflight.py check_planned); a job a killed run left is finished."""
    from audit.preflight import Planned, check_planned, sealed_head

    if workflow.remote_exec or workflow.subprocess_exec:
        return
    dag = workflow.dag
    settings = workflow.dag_settings
    jobs = []
    for j in dag.needrun_jobs():
        why = dag.reason(j)
        updated = tuple(sorted(map(str, why.updated_input - why.updated_input_run)))
        names = set(why.get_names())
        # With --rerun-incomplete (the profile), Snakemake forces the outputs its
        # incomplete markers name: a job a killed or interrupted run left is "forced",
        # not "incomplete output files", when no --forcerun/--forceall/-F asked for it.
        asked = settings.forceall or settings.forcetargets or j.rule in dag.forcerules
        if "forced" in names and not asked:
            names = (names - {"forced"}) | {preflight.INCOMPLETE}
        jobs.append(Planned(j.rule.name, tuple(map(str, j.output)), frozenset(names), updated))
    guard(check_planned, RES, ARM, LOCKED, sealed_head(RES), jobs)


def check_bundle(bundle, files, built_by_rule, jobs):
    """missing_file for a bundle folder or file that is not there (unless a rule builds it),
    and for a trials source's jobs folder."""
    guard(preflight.check_bundle, bundle, list(files), built_by_rule)
    guard(preflight.check_jobs, jobs)


def check_writable(res, state=".snakemake"):
    """unwritable: a results folder this run could not write, refused before any job."""
    if not _own_process():
        guard(preflight.check_writable, res, state)


def check_clock(res, inputs):
    """clock_skew: a file in the arm's folder, or an input, modified after now (not in a
    job of its own: a cluster node's clock may differ by seconds)."""
    if not _own_process():
        guard(preflight.check_clock, res, list(inputs))


_GUARD = []  # the open run-lock file, kept for the life of this process


def hold_run_lock(state=".snakemake"):
    """One run per folder: refuse a second run while one is alive; resume a dead one
    (audit/preflight.py hold_run_lock). Interrupted jobs leave no partial
    outputs: every program writes through a temporary file renamed into place, so
    their jobs simply run again."""
    if _own_process():
        return
    fh, stale = guard(preflight.hold_run_lock, state, config.get("arm"))
    _GUARD.append(fh)
    if stale:
        print(f"note: removed {stale} stale Snakemake lock(s) left by a dead run")


def check_envs(impls):
    """An environment that lost files since its sync loses its marker: synced again."""
    if _own_process():
        return
    for impl, why in preflight.stale_envs(impls, workflow.basedir):
        print(f"note: the impl-{impl} environment is incomplete ({why}); syncing it again")


def freeze_read():
    """What the workflow's read built lives as long as the process: out of the collector's
    way, during the run and at its exit (audit/core/run_end.py)."""
    from audit.core.run_end import freeze_read as freeze

    freeze()


def release_scheduler_timers():
    """The process ends with its last job, not up to a second later (audit/core/run_end.py)."""
    from audit.core.run_end import release_timers

    release_timers()


def terminal_verbose():
    """Snakemake's own output on the terminal (SECONDSEAT_VERBOSE=1, or --verbose)."""
    from audit.core.console import verbose_env

    return verbose_env() or bool(getattr(workflow.output_settings, "verbose", False))


def print_run_summary():
    """What the end of a run prints, from the files this run built (no shell): the arm's
    answer, the report's path and the annex head last (audit/preflight.py)."""
    print(preflight.run_summary(RES, KIND), end="")


def interrupted_exit():
    """Ctrl-C: one line and exit 130 (the jobs were cancelled; the log file has the rest)."""
    from audit.core import console

    if console.interrupted:
        print("interrupted; the same command resumes", file=sys.stderr, flush=True)
        release_scheduler_timers()
        raise SystemExit(130)


def show_summary_on_nothing_to_do():
    """A run with nothing to do prints the same summary, from the sealed files."""
    from audit.core import console

    console.on_nothing_to_do = print_run_summary


def prereg_record(prereg):
    """The arm's kind and its prereg's frozen record: the prereg read and checked once
    (audit/kinds/arm_kind.py), then parsed once by its kind's reader. The document goes
    no further: every rule reads the record (or the arm built from it)."""
    from audit.kinds.arm_kind import load_checked

    kind, doc = guard(load_checked, prereg)
    return kind, guard(kind.entry("parse"), doc, prereg)


def seat_prereg(cfg):
    """The prereg, its expected blake3 and the lock's arguments for the bundle it must
    match: a first seat's from the config; a second seat's from the first seat's annex,
    once it verifies (second_seat), the bundle matching that annex's lock."""
    if cfg["seat"] == "second":
        annex, prereg, blake3 = second_seat(cfg)
        return prereg, blake3, ["--expect-bundle", f"{annex}/lock/lock.json"]
    return cfg["prereg"], cfg["prereg_blake3"], []


def second_seat(cfg):
    """A second seat's annex, prereg and blake3, once the first seat's annex verifies
    against the head held (before any job; nothing read from the annex before)."""
    return guard(preflight.second_seat, cfg["annex"], cfg.get("head"), _config_source("head"))


def check_amends(prereg, amended, arm, bundle_files, jobs=None):
    """An amendment's parent, before any job (audit/lock/amends.py): the arm exists, its annex
    verifies with the declared head (the seal's verify), no cycle, the same bundle content.
    Returns the parent arm's name, or None when the prereg amends nothing."""
    from audit.lock.amends import check

    found = guard(check, prereg, amended, arm, RESULTS, bundle_files, jobs)
    return found[0] if found else None


def stamp_refused_exit():
    """A stamp due in this run that the TSA refused (the job's one line,
    error[tsa_unavailable]): that line and exit 2, as before any job, not Snakemake's 1."""
    from audit.seal.timestamp import refused_stamp

    if TSA_URL and not _own_process():
        logs = [f"{RES}/logs/timestamp_lock.log", f"{RES}/logs/annex.log"]
        line = refused_stamp(logs, _RUN_BEGAN)
        if line is not None:
            print(line, file=sys.stderr, flush=True)
            release_scheduler_timers()
            raise SystemExit(2)


def input_refused_exit():
    """A job of this run that refused its input (a contestant's, a control's or a referee
    tool's one line, error[<class>] of an input class: audit/core/run_end.py): that line
    and exit 2, as a refusal before any job, not Snakemake's 1; when the arm was locked
    on that input, one line more saying what to do (a new arm)."""
    from audit.core.run_end import refusal_end

    if _own_process():
        return
    logs = sorted(Path(RES, "logs").glob("*.log"))
    lines = refusal_end(logs, _RUN_BEGAN, ARM, Path(RES, "lock", "lock.json"))
    if not lines:
        return
    for line in lines:
        print(line, file=sys.stderr, flush=True)
    release_scheduler_timers()
    raise SystemExit(2)
