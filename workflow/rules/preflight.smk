# Checks made while the workflow is read, before any job runs (so `snakemake -n`
# refuses too): the config against its schema, the prereg's presence and blake3,
# the bundle's files. A refusal is one line on stderr, `error[<class>]: <file>:
# <detail>`, exit status 2, and nothing written. The lock rule checks the
# prereg's hash again when it runs, against a change made in between.
# hold_run_lock() refuses a second run while one is alive in the folder, and lets
# the usual command resume a run that was killed.
import datetime
import fcntl
import json
import os
import re
import sys
import time
from pathlib import Path

import blake3
import jsonschema
import yaml


# Every job is a new Python process. Where PYTHONDONTWRITEBYTECODE is set (some
# CI machines set it), each would compile polars, yaml and the project's own
# modules again as it starts, about 0.7 s a job; the jobs may cache bytecode.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def refuse(kind, file, detail):
    """Stop before any job runs: one line on stderr, exit status 2."""
    print(f"error[{kind}]: {file}: {' '.join(str(detail).split())}", file=sys.stderr)
    sys.exit(2)


def _config_source(key):
    """Where a top-level config key was set: --config, or the last config file naming it."""
    if key is not None and key in (workflow.config_settings.config or {}):  # --config only
        return "--config"
    given = [str(f) for f in workflow.config_settings.configfiles]  # --configfile: these win
    others = [str(f) for f in workflow.configfiles if str(f) not in given]
    for f in [*reversed(given), *reversed(others)]:
        try:
            with open(f, encoding="utf-8") as fh:
                if key in (yaml.safe_load(fh) or {}):
                    return str(f)
        except (OSError, yaml.YAMLError):
            continue
    return str(workflow.configfiles[-1]) if workflow.configfiles else "--config"


def check_config(cfg):
    """bad_config for the first schema violation (an unknown key is one)."""
    from audit.cells.prereg import schema as _schema  # the repository is on sys.path

    schema = _schema("config")
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(cfg), key=lambda e: list(map(str, e.absolute_path)))
    # The clone's own path is in every job's command and in input paths: the
    # check as a bundle path (the schema's properties.bundle).
    paths = schema["properties"]["bundle"]
    if not re.fullmatch(paths["pattern"], workflow.basedir):
        refuse("bad_config", repr(workflow.basedir), f"the repository's folder: {paths['$comment']}")
    if not errors:
        return
    err = errors[0]
    key = str(err.absolute_path[0]) if err.absolute_path else None
    if err.validator == "additionalProperties":
        unknown = sorted(set(cfg) - set(schema.get("properties", {})))
        key = unknown[0] if unknown else None
        if key == "kind":
            refuse(
                "bad_config",
                _config_source(key),
                "kind is not a config option: the prereg's own `kind:` decides the arm's kind",
            )
        refuse("bad_config", _config_source(key), f"unknown option {key!r}")
    where = key if key is not None else "(top level)"
    message = err.message if len(err.message) < 200 else err.message[:197] + "..."
    comment = schema.get("properties", {}).get(key, {}).get("$comment")
    if comment and err.validator in ("pattern", "not", "maxLength"):
        shown = repr(err.instance) if len(repr(err.instance)) < 120 else repr(err.instance)[:117] + "..."
        message = f"{shown}: {comment}"  # repr: a newline or a quote stays visible, on one line
    refuse("bad_config", _config_source(key), f"at {where}: {message}")


def check_prereg(prereg, expected):
    """missing_file / unreadable / prereg_changed, as the lock would say, but before any job."""
    p = Path(prereg)
    if not p.is_file():
        refuse("missing_file", prereg, "no such file (the config's prereg)")
    try:
        actual = blake3.blake3(p.read_bytes()).hexdigest()
    except OSError as e:
        refuse("unreadable", prereg, e.strerror or e)
    if actual != expected:
        refuse(
            "prereg_changed",
            prereg,
            f"blake3 is {actual} but the config expects {expected}; "
            "a changed method is a new arm (an amendment), not an edit",
        )


def guard(check, *args):
    """A check of audit/core/preflight.py: its AuditError is one line and exit 2 here."""
    from audit.errors import AuditError

    try:
        return check(*args)
    except AuditError as e:
        refuse(e.kind, e.path, e.detail)


def check_arm(res, arm, prereg, blake3_now):
    """arm_locked: an arm holds one method, read by one seat (audit/core/preflight.py).
    Once results/<arm>/lock/lock.json exists, a run whose prereg has another blake3,
    or that reads it from another file (another seat), is refused before any job, so
    the arm's lock, ledger and annex are never replaced. Returns the lock, or None."""
    from audit.core.preflight import check_locked_arm

    return guard(check_locked_arm, res, arm, prereg, blake3_now)


def check_locked_bundle(locked, arm, roles, jobs=None):
    """arm_locked: bundle content other than the locked arm's (by content digest), before any job."""
    from audit.core import preflight

    if locked is not None:
        guard(preflight.check_locked_bundle, locked, arm, roles, jobs)


def guard_planned():
    """arm_locked / arm_sealed: once the DAG is built and before its first job, a run that
    would lock a locked arm again, or run anything in a sealed one, is refused
    (audit/core/preflight.py check_planned); a job a killed run left is finished."""
    from audit.core.preflight import Planned, check_planned, sealed_head

    if workflow.remote_exec or workflow.subprocess_exec:
        return
    dag = workflow.dag
    jobs = [
        Planned(j.rule.name, tuple(map(str, j.output)), frozenset(dag.reason(j).get_names()))
        for j in dag.needrun_jobs()
    ]
    guard(check_planned, RES, ARM, LOCKED, sealed_head(RES), jobs)


def check_bundle(bundle, files, built_by_rule):
    """missing_file for a bundle folder or file that is not there (unless a rule builds it)."""
    if bundle == built_by_rule:
        return
    if not Path(bundle).is_dir():
        refuse("missing_file", bundle, "bundle folder does not exist (the config's bundle)")
    for name in files:
        if not Path(bundle, name).is_file():
            refuse("missing_file", f"{bundle}/{name}", "no such file in the bundle folder")


def _folders(top):
    """top and every folder under it (none when top does not exist)."""
    if not Path(top).is_dir():
        return []
    return [Path(top)] + sorted(Path(d, n) for d, dirs, _ in os.walk(top) for n in dirs)


def check_writable(res, state=".snakemake"):
    """unwritable: a results folder this run could not write (a read-only mount, an
    immutable folder, its permissions), refused before any job. A job that fails
    to write has its outputs removed by Snakemake; refused here, nothing is run,
    written or removed. Only looked at (os.access), never written to: a probe file
    would change the folders' times. A job started as a process of its own (a
    cluster node) belongs to a run that was checked: it checks nothing."""
    if workflow.remote_exec or workflow.subprocess_exec:
        return
    wanted = [Path("."), Path(state), Path("results"), *_folders("results/envs"), *_folders(res)]
    for d in wanted:
        if d.exists() and not os.access(d, os.W_OK | os.X_OK):
            refuse(
                "unwritable",
                d,
                "this run cannot write here (a read-only mount, an immutable folder or its"
                " permissions); nothing was run or removed",
            )
    for f in (Path(res, "ledger.jsonl"),):
        if f.exists() and not os.access(f, os.W_OK):
            refuse("unwritable", f, "this run cannot write the ledger; nothing was run or removed")


CLOCK_SLACK = 5  # seconds a file's time may run ahead of this machine's clock


def check_clock(res, inputs):
    """clock_skew: a file in the arm's folder, or an input, modified after now.
    Files stamped by a clock that ran ahead (or this machine's clock set back)
    look newer than what was built from them, so Snakemake would run those jobs
    again and replace outputs the ledger recorded. Refused before any job; not
    in a job started as a process of its own (a cluster node's clock may differ
    by seconds from the one that started the run)."""
    if workflow.remote_exec or workflow.subprocess_exec:
        return
    now = time.time()
    files = [Path(d, n) for d, _, names in os.walk(res) for n in names]  # none if res is absent
    for f in [*map(Path, inputs), *files]:
        try:
            mtime = f.stat().st_mtime
        except OSError:
            continue
        if mtime > now + CLOCK_SLACK:
            when = datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc)
            refuse(
                "clock_skew",
                f,
                f"modified {when:%Y-%m-%dT%H:%M:%SZ}, {mtime - now:.0f} s after this machine's"
                " clock: set the clock right (or the file's time, `touch` it: the ledger"
                " records its bytes, not its time) and run again; nothing was run or removed",
            )


_GUARD = []  # the open lock file, kept for the life of this process


def _holder(fh):
    """Who holds the run lock, as its holder wrote it (pid, start time, command)."""
    fh.seek(0)
    try:
        who = json.loads(fh.read() or "{}")
    except ValueError:
        who = {}
    return who if isinstance(who, dict) else {}


def hold_run_lock(state=".snakemake"):
    """One run per folder: refuse a second run while one is alive; resume a dead one.

    This process takes an exclusive flock on .snakemake/secondseat.lock and
    keeps it until it exits; the kernel drops it when the holder dies, even by
    SIGKILL. Holding it proves that no other run of this workflow is alive in
    this folder (whatever its arm), so the Snakemake locks found are stale (a
    run killed by a signal or a power loss) and are removed, as `--unlock`
    would. When another process holds it, this run is refused at once, naming
    the holder, and nothing is touched: its Snakemake locks are never removed.
    Interrupted jobs leave no partial outputs: every program writes through a
    temporary file renamed into place, so their jobs simply run again.
    Jobs that Snakemake starts as processes of their own (a cluster, a
    subprocess) read this file again: they belong to the run holding the lock."""
    if workflow.remote_exec or workflow.subprocess_exec:
        return
    Path(state).mkdir(exist_ok=True)
    path = Path(state) / "secondseat.lock"
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until exit
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        who = _holder(fh)
        fh.close()
        refuse(
            "busy",
            path,
            f"another run is alive in this folder (pid {who.get('pid', '?')},"
            f" started {who.get('started', '?')}, arm {who.get('arm', '?')}); wait for it"
            " to end or stop it: two runs in one folder would mix their records",
        )
    fh.seek(0)
    fh.truncate()
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    fh.write(json.dumps({"pid": os.getpid(), "started": started, "arm": config.get("arm")}))
    fh.flush()
    _GUARD.append(fh)
    stale = sorted(Path(state, "locks").glob("*.lock"))
    for f in stale:
        f.unlink()
    if stale:
        print(f"note: removed {len(stale)} stale Snakemake lock(s) left by a dead run")


def check_envs(impls):
    """A contestant's environment whose marker no longer vouches for it (files lost
    since its sync: an interrupted sync elsewhere, a deleted package) loses its
    marker, so the impl_env rule syncs and checks it again (audit.core.envs)."""
    from audit.core.envs import stale_marker  # the repository is on sys.path: the Snakefile's folder

    if workflow.remote_exec or workflow.subprocess_exec:
        return
    for impl in impls:
        marker = Path("results", "envs", f"impl-{impl}.synced")
        if marker.is_file():
            why = stale_marker(marker, Path(workflow.basedir, ".venvs", f"impl-{impl}"))
            if why:
                print(f"note: the impl-{impl} environment is incomplete ({why}); syncing it again")
                marker.unlink()


def release_scheduler_timers():
    """The process ends with its last job, not up to a second later (audit/core/run_end.py)."""
    from audit.core.run_end import release_timers

    release_timers()


def print_run_summary():
    """What the end of a run prints, from the files this run built (no shell)."""
    files = [f"{RES}/census.txt"]
    files += [f"{RES}/compare/compare.txt"] if KIND == "trials" else [f"{RES}/controls.csv"]
    for f in files:
        if Path(f).is_file():
            print(Path(f).read_text(encoding="utf-8"), end="")
    readme = Path(RES, "annex", "README.md")
    if readme.is_file():
        for line in readme.read_text(encoding="utf-8").splitlines():
            if line.startswith("Annex head"):
                print(line)


def prereg_kind(prereg):
    """The arm's kind and its prereg, read and checked once (audit/core/arm_kind.py)."""
    from audit.core.arm_kind import load_checked
    from audit.errors import AuditError

    try:
        return load_checked(prereg)
    except AuditError as e:
        refuse(e.kind, e.path, e.detail)


def second_seat(cfg):
    """A second seat's inputs, once the first seat's annex verifies against the head held.

    Runs before any job: without a head, or when verification fails, one line
    and exit 2, nothing written. Only then is anything read from the annex."""
    annex = cfg["annex"].rstrip("/")
    head = cfg.get("head")
    if not head:
        refuse(
            "bad_config",
            _config_source("head"),
            "a second seat needs head=<the annex head the first seat printed or published>",
        )
    sys.path.insert(0, str(workflow.basedir))
    from audit.errors import AuditError
    from audit.seal.verify import verify

    try:
        problems = verify(annex, head)
    except AuditError as e:
        refuse(e.kind, e.path, e.detail)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        refuse("annex_not_verified", annex, f"{problems[0]}{more}")
    with open(f"{annex}/lock/lock.json", encoding="utf-8") as fh:
        blake3_hex = json.load(fh)["prereg"]["blake3"]
    return annex, f"{annex}/lock/prereg.yaml", blake3_hex


def check_amends(prereg, doc, arm, bundle_files, jobs=None):
    """An amendment's parent, before any job (audit/seal/amends.py): the arm exists, its annex
    verifies with the declared head (the seal's verify), no cycle, the same bundle content.
    Returns the parent arm's name, or None when the prereg amends nothing."""
    from audit.seal.amends import check
    from audit.errors import AuditError

    try:
        found = check(prereg, doc, arm, "results", bundle_files, jobs)
    except AuditError as e:
        refuse(e.kind, e.path, e.detail)
    return found[0] if found else None
