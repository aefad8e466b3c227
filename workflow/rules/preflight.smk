# Checks made while the workflow is read, before any job runs (so `snakemake -n`
# refuses too): the config against its schema, the prereg's presence and blake3,
# the bundle's files. A refusal is one line on stderr, `error[<class>]: <file>:
# <detail>`, exit status 2, and nothing written. The lock rule checks the
# prereg's hash again when it runs, against a change made in between.
# Last, clear_stale_locks() lets the usual command resume a run that was killed.
import fcntl
import os
import re
import sys

import blake3
import jsonschema


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
    path = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
    with open(path, encoding="utf-8") as fh:
        schema = yaml.safe_load(fh)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(cfg), key=lambda e: list(map(str, e.absolute_path)))
    # The clone's own path is in every job's command and in input paths: the
    # same rule as a bundle path (schema: properties.bundle).
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


def check_bundle(bundle, files, built_by_rule):
    """missing_file for a bundle folder or file that is not there (unless a rule builds it)."""
    if bundle == built_by_rule:
        return
    if not Path(bundle).is_dir():
        refuse("missing_file", bundle, "bundle folder does not exist (the config's bundle)")
    for name in files:
        if not Path(bundle, name).is_file():
            refuse("missing_file", f"{bundle}/{name}", "no such file in the bundle folder")


_GUARD = []  # the open lock file, kept for the life of this process


def clear_stale_locks(state=".snakemake"):
    """Let the usual command resume after a run killed by a signal or a power loss.

    Snakemake's own lock files outlive a killed run, and it then refuses every
    run until `--unlock`. This process takes an exclusive flock on
    .snakemake/secondseat.lock and keeps it until it exits; the kernel drops it
    when the holder dies, even by SIGKILL. Holding it proves that no other run of
    this workflow is alive in this folder, so the Snakemake locks found are stale
    and are removed, as `--unlock` would. When another process holds it, nothing
    is touched and Snakemake's lock decides as usual (a second run is refused).
    Interrupted jobs leave no partial outputs: every program writes through a
    temporary file renamed into place, so their jobs simply run again."""
    Path(state).mkdir(exist_ok=True)
    fh = open(Path(state) / "secondseat.lock", "a+")  # noqa: SIM115 - held until exit
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return
    _GUARD.append(fh)
    stale = sorted(Path(state, "locks").glob("*.lock"))
    for f in stale:
        f.unlink()
    if stale:
        print(f"note: removed {len(stale)} stale Snakemake lock(s) left by a killed run")


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
            if line.startswith("Ledger head"):
                print(line)
