"""Checks made before any job runs, as tested Python (workflow/rules/preflight.smk calls them).

Each check raises an AuditError (one line, exit 2) and writes nothing. The ones
here guard an arm that is already locked: once ``results/<arm>/lock/lock.json``
exists, the arm holds one method, on one bundle's content, from one seat, and a
run naming another is refused before any job (docs/seal.md, "An arm is
immutable"). The same command with the same inputs stays a no-op.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.cells import bundle_checks
from audit.core import disclosure
from audit.errors import AuditError
from audit.files import file_blake3, open_regular, regular_files, require_regular
from audit.kinds.arm_kind import LEADERBOARD, Kind

NEW_ARM = "another bundle, method or seat is a new arm: run it under a new arm name"
NEVER = "the locked arm is never overwritten"


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise AuditError("unreadable", str(path), f"{what} cannot be read ({type(e).__name__})")


@dataclass(frozen=True)
class Locked:
    """What an arm's lock holds: the prereg's blake3, each bundle role's content digest
    and file bytes, the jobs files (a trials source), and the prereg file the lock read."""

    lock_path: str
    prereg_blake3: str
    content: Mapping[str, str]  # role -> content digest (lock.json)
    files: Mapping[str, tuple[str, str]]  # role -> (file name, blake3) (files.json)
    jobs: tuple[tuple[str, str], ...] | None  # (path under the jobs root, blake3)
    prereg_subject: str | None  # the prereg file the lock read (its event), when recorded


def read_lock(res: str | Path) -> Locked | None:
    """The arm's lock, or None when the arm is not locked (no lock.json): lock.json and
    files.json read through the lock's records (audit/seal/lock_record.py)."""
    from audit.seal.lock_record import parse_files, parse_lock

    path = Path(res, "lock", "lock.json")
    if not path.is_file():
        return None
    lock = _parsed(path, "the arm's lock", parse_lock, "not an arm's lock.json")
    try:
        jobs = (
            tuple((str(f["path"]), str(f["blake3"])) for f in lock.jobs.files)
            if lock.jobs
            else None
        )
    except (KeyError, TypeError, AttributeError):
        raise AuditError("unreadable", str(path), "not an arm's lock.json") from None
    files: dict[str, tuple[str, str]] = {}
    files_path = Path(res, "lock", "files.json")
    if files_path.is_file():
        shape = "not a lock's files.json"
        found = _parsed(files_path, "the arm's files.json", parse_files, shape)
        files = {role: (f.file, f.blake3) for role, f in found.items()}
    content = {role: str(t.content_digest) for role, t in lock.bundle.items()}
    return Locked(str(path), lock.prereg_blake3, content, files, jobs, _prereg_subject(res))


def _parsed(path: Path, what: str, parse: Any, shape: str) -> Any:
    """A lock file's record: unreadable saying ``what`` cannot be read, or naming its
    ``shape`` when it is not of the lock's shape."""
    doc = _read_json(path, what)
    try:
        return parse(doc, str(path))
    except AuditError:
        raise AuditError("unreadable", str(path), shape) from None


def _prereg_subject(res: str | Path) -> str | None:
    """The prereg file the lock read, from its event (events/lock.json), if there and an
    event file (audit/seal/ledger.py read_events)."""
    from audit.seal.ledger import read_events

    path = Path(res, "events", "lock.json")
    if not path.is_file():
        return None
    try:
        records = read_events(path)
    except AuditError:
        return None
    for e in records:
        if e.get("event") == "prereg_locked":
            return str(e.get("subject"))
    return None


def check_locked_prereg(locked: Locked, arm: str, blake3_now: str) -> None:
    """arm_locked: a prereg with another blake3 under a locked arm."""
    if locked.prereg_blake3 != blake3_now:
        raise AuditError(
            "arm_locked",
            locked.lock_path,
            f"arm {arm!r} is locked to the prereg with blake3 {locked.prereg_blake3}, and this"
            f" run's prereg has blake3 {blake3_now}; a changed method is a new arm: run it under"
            f" a new arm name (for an amendment, say arm: {arm}-amendment-1); {NEVER}",
        )


def check_locked_seat(locked: Locked, arm: str, prereg_path: str) -> None:
    """arm_locked: the lock read its prereg from another file (a second seat's run reads the
    first seat's annex, a first seat's its own prereg): another seat, or another file."""
    if locked.prereg_subject is not None and locked.prereg_subject != prereg_path:
        raise AuditError(
            "arm_locked",
            locked.lock_path,
            f"arm {arm!r} was locked from the prereg file {locked.prereg_subject!r} (blake3"
            f" {locked.prereg_blake3}), and this run reads {prereg_path!r}: a second seat, or"
            f" a prereg moved, is a new arm: run it under a new arm name; {NEVER}",
        )


def check_locked_bundle(
    locked: Locked,
    arm: str,
    roles: Mapping[str, tuple[str, Mapping[str, str] | None]],
    jobs: tuple[str, str] | None = None,
) -> None:
    """arm_locked: bundle content (by content digest) other than the lock's.

    ``roles``: role -> (the file this run would read, its declared CSV types). A
    file the lock hashed byte for byte is the locked content; another file's content
    digest names what differs. The same content in other bytes is refused too: every
    job reads the bytes the lock hashed (audit/seal/locked.py). A file not there yet
    (a bundle a rule builds) is left to the lock's own check. ``jobs``: a trials
    source's (jobs root, its folder), every file compared by blake3."""
    for role, (path, types) in roles.items():
        if role not in locked.content or not Path(path).is_file():
            continue
        want_digest = locked.content[role]
        want_blake3 = locked.files.get(role, ("", ""))[1]
        now_blake3 = file_blake3(path)
        if now_blake3 == want_blake3:
            continue
        from audit.bundles.digest import table_digest  # polars: only for a file that differs

        now_digest = str(table_digest(path, dict(types) if types else None)["content_digest"])
        if now_digest != want_digest:
            raise AuditError(
                "arm_locked",
                path,
                f"arm {arm!r} is locked to {role} content digest {want_digest} (blake3"
                f" {want_blake3}), and this run's {role} has content digest {now_digest} (blake3"
                f" {now_blake3}); {NEW_ARM} (say arm:"
                f" {arm}-2; README, 'Auditing another bundle'); {NEVER}",
            )
        raise AuditError(
            "arm_locked",
            path,
            f"arm {arm!r} locked the {role} file with blake3 {want_blake3}; this one holds the"
            f" same content (digest {now_digest}) in other bytes (blake3 {now_blake3}), and every"
            f" job reads the bytes the lock hashed: run with the locked file, or {NEW_ARM}; {NEVER}",
        )
    if jobs is not None and locked.jobs is not None:
        _, folder = jobs
        root = Path(folder)
        now = tuple((rel, file_blake3(root / rel)) for rel in regular_files(root))
        if now != locked.jobs:
            first = _first_difference(dict(locked.jobs), dict(now))
            raise AuditError(
                "arm_locked",
                folder,
                f"arm {arm!r} is locked to other jobs files ({first}); {NEW_ARM}; {NEVER}",
            )


def check_seat_bundle(
    expect_lock: str | None,
    roles: Mapping[str, tuple[str, Mapping[str, str] | None]],
    jobs: tuple[str, str] | None = None,
) -> None:
    """bundle_changed, before any job: a second seat's bundle content other than the first
    seat's lock (``expect_lock``, the verified annex's lock.json; None for a first seat).

    The lock's own comparison (audit/seal/lock_record.py check_seat_table) and digest
    (audit/bundles/digest.py table_digest), made as the workflow is read, so that nothing
    is written under results/<arm>/; a file the first seat hashed byte for byte is its
    content. A file not there yet (a bundle a rule builds) is left to the lock's own
    check; ``jobs``: a trials source's (jobs root, its folder), every file by blake3."""
    if expect_lock is None:
        return
    from audit.seal.lock_record import check_seat_jobs, check_seat_table
    from audit.seal.lock_record import read_lock as read_lock_record

    first = read_lock_record(expect_lock)
    files = read_lock(Path(expect_lock).parent.parent)
    hashed = files.files if files is not None else {}
    for role, (path, types) in roles.items():
        if not Path(path).is_file():
            continue
        if role in hashed and hashed[role][1] == file_blake3(path):
            continue  # the bytes the first seat locked: its content
        from audit.bundles.digest import table_digest  # polars: only for a file that differs

        digest = table_digest(path, dict(types) if types else None)["content_digest"]
        check_seat_table(expect_lock, first, role, path, digest)
    if jobs is not None and Path(jobs[1]).is_dir():
        root = Path(jobs[1])
        now = [{"path": rel, "blake3": file_blake3(root / rel)} for rel in regular_files(root)]
        check_seat_jobs(expect_lock, first, jobs[1], now)


def _first_difference(locked: Mapping[str, str], now: Mapping[str, str]) -> str:
    for rel in sorted(set(locked) | set(now)):
        a, b = locked.get(rel), now.get(rel)
        if a != b:
            return f"{rel}: locked blake3 {a or 'absent'}, now {b or 'absent'}"
    return "the same files in another order"


def check_locked_arm(
    res: str | Path,
    arm: str,
    prereg_path: str,
    blake3_now: str,
    roles: Mapping[str, tuple[str, Mapping[str, str] | None]] | None = None,
    jobs: tuple[str, str] | None = None,
) -> Locked | None:
    """Every check of a locked arm, in order (prereg, seat, bundle); the lock, or None."""
    locked = read_lock(res)
    if locked is None:
        return None
    check_locked_prereg(locked, arm, blake3_now)
    check_locked_seat(locked, arm, prereg_path)
    if roles is not None:
        check_locked_bundle(locked, arm, roles, jobs)
    return locked


def sealed_head(res: str | Path) -> str | None:
    """The annex head when the arm's ledger ends with its seal, else None."""
    path = Path(res, "ledger.jsonl")
    if not path.is_file():
        return None
    try:
        lines = path.read_bytes().splitlines()
        last = json.loads(lines[-1]) if lines else {}
    except (OSError, ValueError, IndexError):
        return None
    if isinstance(last, dict) and last.get("event") == "annex_sealed":
        return str(last.get("hash"))
    return None


@dataclass(frozen=True)
class Planned:
    """A job Snakemake means to run: its rule, its outputs and why it runs."""

    rule: str
    outputs: tuple[str, ...]
    reasons: frozenset[str]
    updated: tuple[str, ...] = ()  # the inputs Snakemake found newer than the outputs


INCOMPLETE = "incomplete output files"  # Snakemake's reason for a job a killed run left
UPSTREAM = "input files updated by another job"  # a job that runs because another does
MISSING = "output files have to be generated"
# Jobs whose outputs the seal does not record unless the prereg asks (then the annex
# job runs too, and is refused): the self-test asked for on its own (docs/self-test.md).
BESIDE_THE_SEAL = frozenset({"self_test"})


def check_planned(
    res: str | Path, arm: str, locked: Locked | None, head: str | None, jobs: Iterable[Planned]
) -> None:
    """arm_locked / arm_sealed: jobs that would rewrite a locked or sealed arm.

    Called once the DAG is built, before its first job. A locked arm's lock runs
    again only to finish itself (a killed lock); a sealed arm runs nothing that
    writes under results/<arm>/ but a job a killed run left incomplete (or the self-test,
    asked for on its own, which the seal does not record). Anything
    else (changed code, moved or touched inputs, a deleted file) would give the
    arm another head, so the run is refused and nothing is touched."""
    prefix = f"{Path(res).as_posix()}/"
    rewrites = []
    for job in jobs:
        if INCOMPLETE in job.reasons and job.reasons <= {INCOMPLETE, MISSING, UPSTREAM}:
            continue  # a job a killed run started: finished by the same command
        why = "; ".join(sorted(job.reasons)) or "asked for"
        if job.updated:
            more = f" and {len(job.updated) - 3} more" if len(job.updated) > 3 else ""
            why += f": {', '.join(job.updated[:3])}{more}"
        if locked is not None and job.rule == "lock":
            raise AuditError(
                "arm_locked",
                locked.lock_path,
                f"arm {arm!r} is locked, and this run would lock it again ({why}); run the"
                f" command that locked it, or {NEW_ARM}; {NEVER}",
            )
        if job.rule in BESIDE_THE_SEAL:
            continue  # recorded by the seal only when the prereg asks: then the annex job runs
        if head is not None and any(o.startswith(prefix) for o in job.outputs):
            rewrites.append((job, why))
    if rewrites:
        # the job that starts it (not one that runs because another did), named first
        first = min(rewrites, key=lambda jw: (jw[0].reasons <= {UPSTREAM}, jw[0].rule))
        rules = sorted({j.rule for j, _ in rewrites})
        raise AuditError(
            "arm_sealed",
            f"{prefix}ledger.jsonl",
            f"arm {arm!r} is sealed (annex head {head}), and this run would run"
            f" {first[0].rule} again ({first[1]}) and after it {len(rewrites) - 1} more job(s)"
            f" ({', '.join(rules)}), giving the arm another head; a sealed arm is never"
            f" rewritten: restore what changed (a deleted file from the annex, with its time;"
            f" the code and environment it was sealed with), or {NEW_ARM}",
        )


# The checks made while the workflow is read, for every arm: the config, the
# prereg, the bundle's files, the folders and the clock, one run per folder.
# workflow/rules/preflight.smk hands each what Snakemake knows (the config's
# sources, the repository's folder, whether this process is a job of its own).


def config_source(
    key: str | None, given: Mapping[str, Any], given_files: list[str], files: list[str]
) -> str:
    """Where a top-level config key was set: --config, or the last config file naming it.

    ``given``: the --config values; ``given_files``: the --configfile files (these win);
    ``files``: every config file read, the workflow's own first."""
    import yaml

    if key is not None and key in given:
        return "--config"
    others = [f for f in files if f not in given_files]
    for f in [*reversed(given_files), *reversed(others)]:
        try:
            with open(f, encoding="utf-8") as fh:
                if key in (yaml.safe_load(fh) or {}):
                    return f
        except (OSError, yaml.YAMLError):
            continue
    return files[-1] if files else "--config"


def check_config(cfg: Mapping[str, Any], basedir: str, source: Any) -> None:
    """bad_config for the first schema violation (an unknown key is one), and for a
    repository folder a job's command could not hold. ``source(key)`` says where a key
    was set (config_source)."""
    import re

    import jsonschema

    from audit.cells.prereg import schema as _schema

    schema = _schema("config")
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(dict(cfg)), key=lambda e: list(map(str, e.absolute_path)))
    # The clone's own path is in every job's command and in input paths: the
    # check as a bundle path (the schema's properties.bundle).
    paths = schema["properties"]["bundle"]
    if not re.fullmatch(paths["pattern"], basedir):
        raise AuditError(
            "bad_config", repr(basedir), f"the repository's folder: {paths['$comment']}"
        )
    if not errors:
        return
    err = errors[0]
    key = str(err.absolute_path[0]) if err.absolute_path else None
    if err.validator == "additionalProperties":
        unknown = sorted(set(cfg) - set(schema.get("properties", {})))
        key = unknown[0] if unknown else None
        if key == "kind":
            raise AuditError(
                "bad_config",
                source(key),
                "kind is not a config option: the prereg's own `kind:` decides the arm's kind",
            )
        raise AuditError("bad_config", source(key), f"unknown option {key!r}")
    where = key if key is not None else "(top level)"
    message = err.message if len(err.message) < 200 else err.message[:197] + "..."
    comment = schema.get("properties", {}).get(key, {}).get("$comment")
    if comment and err.validator in ("pattern", "not", "maxLength"):
        shown = (
            repr(err.instance)
            if len(repr(err.instance)) < 120
            else repr(err.instance)[:117] + "..."
        )
        message = f"{shown}: {comment}"  # repr: a newline or a quote stays visible, on one line
    raise AuditError("bad_config", source(key), f"at {where}: {message}")


def check_prereg(prereg: str, expected: str) -> None:
    """missing_file / unreadable / prereg_changed, as the lock would say, but before any job."""
    p = Path(prereg)
    if not p.exists():
        raise AuditError("missing_file", prereg, "no such file (the config's prereg)")
    require_regular(p, prereg)  # a FIFO, device or folder: refused before it is opened
    actual = file_blake3(p)  # unreadable: its AuditError
    if actual != expected:
        raise AuditError(
            "prereg_changed",
            prereg,
            f"blake3 is {actual} but the config expects {expected}; "
            "a changed method is a new arm (an amendment), not an edit",
        )


def check_bundle(bundle: str, files: Iterable[str], built_by_rule: str | None) -> None:
    """missing_file for a bundle folder or file that is not there (unless a rule builds it)."""
    if bundle == built_by_rule:
        return
    if not Path(bundle).is_dir():
        raise AuditError(
            "missing_file", bundle, "bundle folder does not exist (the config's bundle)"
        )
    for name in files:
        shown = f"{bundle}/{name}"
        try:
            require_regular(Path(bundle, name), shown)
        except AuditError as e:
            if e.detail == "no such file":
                raise AuditError(
                    "missing_file", shown, "no such file in the bundle folder"
                ) from None
            raise
        bounded(Path(bundle, name), shown)


def bounded(path: Path, shown: str) -> None:
    """too_large: a parquet file of the bundle that would be read past the bound
    (audit/bundles/parquet_bounds.py: its footer and page headers, nothing decompressed).
    A file that is not parquet is left to its reader."""
    with open_regular(path, shown) as f:
        if f.read(4) != b"PAR1":
            return
    from audit.bundles import parquet_bounds

    parquet_bounds.check(path, shown)


def _folders(top: str | Path) -> list[Path]:
    """top and every folder under it (none when top does not exist)."""
    import os

    if not Path(top).is_dir():
        return []
    return [Path(top)] + sorted(Path(d, n) for d, dirs, _ in os.walk(top) for n in dirs)


def check_writable(res: str | Path, state: str = ".snakemake") -> None:
    """unwritable: a results folder this run could not write (a read-only mount, an
    immutable folder, its permissions), refused before any job. A job that fails
    to write has its outputs removed by Snakemake; refused here, nothing is run,
    written or removed. Only looked at (os.access), never written to: a probe file
    would change the folders' times."""
    import os

    wanted = [Path("."), Path(state), Path("results"), *_folders("results/envs"), *_folders(res)]
    for d in wanted:
        if d.exists() and not os.access(d, os.W_OK | os.X_OK):
            raise AuditError(
                "unwritable",
                str(d),
                "this run cannot write here (a read-only mount, an immutable folder or its"
                " permissions); nothing was run or removed",
            )
    f = Path(res, "ledger.jsonl")
    if f.exists() and not os.access(f, os.W_OK):
        raise AuditError(
            "unwritable", str(f), "this run cannot write the ledger; nothing was run or removed"
        )


CLOCK_SLACK = 5  # seconds a file's time may run ahead of this machine's clock


def check_clock(res: str | Path, inputs: Iterable[str], now: float | None = None) -> None:
    """clock_skew: a file in the arm's folder, or an input, modified after now.
    Files stamped by a clock that ran ahead (or this machine's clock set back)
    look newer than what was built from them, so Snakemake would run those jobs
    again and replace outputs the ledger recorded. Refused before any job."""
    import datetime
    import os
    import time

    now = time.time() if now is None else now
    files = [Path(d, n) for d, _, names in os.walk(res) for n in names]  # none if res is absent
    for f in [*map(Path, inputs), *files]:
        try:
            mtime = f.stat().st_mtime
        except OSError:
            continue
        if mtime > now + CLOCK_SLACK:
            when = datetime.datetime.fromtimestamp(mtime, datetime.UTC)
            raise AuditError(
                "clock_skew",
                str(f),
                f"modified {when:%Y-%m-%dT%H:%M:%SZ}, {mtime - now:.0f} s after this machine's"
                " clock: set the clock right (or the file's time, `touch` it: the ledger"
                " records its bytes, not its time) and run again; nothing was run or removed",
            )


def _holder(fh: Any) -> dict[str, Any]:
    """Who holds the run lock, as its holder wrote it (pid, start time, command)."""
    fh.seek(0)
    try:
        who = json.loads(fh.read() or "{}")
    except ValueError:
        who = {}
    return who if isinstance(who, dict) else {}


def hold_run_lock(state: str | Path, arm: str | None) -> tuple[Any, int]:
    """One run per folder: refuse a second run while one is alive; resume a dead one.

    Takes an exclusive flock on <state>/secondseat.lock, kept until the caller's
    process exits (the returned file must stay open); the kernel drops it when
    the holder dies, even by SIGKILL. Holding it proves that no other run of this
    workflow is alive in this folder (whatever its arm), so the Snakemake locks
    found are stale (a run killed by a signal or a power loss) and are removed,
    as `--unlock` would. When another process holds it, busy, naming the holder,
    and nothing is touched: its Snakemake locks are never removed. Returns the
    open file and how many stale locks were removed."""
    import datetime
    import fcntl
    import os

    Path(state).mkdir(exist_ok=True)
    path = Path(state) / "secondseat.lock"
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until exit
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        who = _holder(fh)
        fh.close()
        raise AuditError(
            "busy",
            str(path),
            f"another run is alive in this folder (pid {who.get('pid', '?')},"
            f" started {who.get('started', '?')}, arm {who.get('arm', '?')}); wait for it"
            " to end or stop it: two runs in one folder would mix their records",
        ) from None
    fh.seek(0)
    fh.truncate()
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    fh.write(json.dumps({"pid": os.getpid(), "started": started, "arm": arm}))
    fh.flush()
    stale = sorted(Path(state, "locks").glob("*.lock"))
    for f in stale:
        f.unlink()
    return fh, len(stale)


def stale_envs(impls: Iterable[str], basedir: str | Path) -> list[tuple[str, str]]:
    """A contestant's environment whose marker no longer vouches for it (files lost
    since its sync: an interrupted sync elsewhere, a deleted package) loses its
    marker, so the impl_env rule syncs and checks it again (audit.core.envs).
    Returns (impl, why) for each marker removed."""
    from audit.core.envs import stale_marker

    removed = []
    for impl in impls:
        marker = Path("results", "envs", f"impl-{impl}.synced")
        if marker.is_file():
            why = stale_marker(marker, Path(basedir, ".venvs", f"impl-{impl}"))
            if why:
                marker.unlink()
                removed.append((impl, why))
    return removed


def run_summary(res: str | Path, kind: Kind) -> str:
    """What the end of a run prints, from the files this run built: with a report, the arm's
    answer (audit/report/summary.py), the report's path and the annex head, last; a run asked
    for less (say census.txt alone) prints the census, the controls (or the trials
    comparison) and the annex head, as far as they exist."""
    from audit.report.summary import answer_summary

    answer = answer_summary(Path(res), kind)
    if answer is not None:
        return answer
    files = [Path(res, f) for f in ("census.txt", *kind.closing)]
    out = [f.read_text(encoding="utf-8") for f in files if f.is_file()]
    readme = Path(res, "annex", "README.md")
    if readme.is_file():
        out += [
            line + "\n"
            for line in readme.read_text(encoding="utf-8").splitlines()
            if line.startswith("Annex head")
        ]
    return "".join(out)


def second_seat(annex: str, head: str | None, source: str) -> tuple[str, str, str]:
    """A second seat's inputs (the annex, its locked prereg, that prereg's blake3), once the
    first seat's annex verifies against the head held. Without a head, or when
    verification fails, one line and exit 2; only then is anything read from the annex."""
    from audit.kinds.arm_kind import annex_contract
    from audit.seal.verify import verify

    annex = annex.rstrip("/")
    if not head:
        raise AuditError(
            "bad_config",
            source,
            "a second seat needs head=<the annex head the first seat printed or published>",
        )
    problems = verify(annex, head, read_prereg=annex_contract)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise AuditError("annex_not_verified", annex, f"{problems[0]}{more}")
    from audit.seal.lock_record import parse_lock

    path = Path(annex, "lock", "lock.json")
    lock = _parsed(path, "the annex's lock", parse_lock, "not an arm's lock.json")
    return annex, f"{annex}/lock/prereg.yaml", lock.prereg_blake3


def check_registry_entries(rec: Any, prereg: str, bundle: str) -> None:
    """bad_prereg, before the lock of a trials arm on a registry: a control whose declared
    target entry (its entry columns' values joined by "|") is not in the registry table."""
    from audit.core.disclosure import leaderboard_ids

    src = rec.source
    named = [
        (name, str(c.names[0]))
        for name, c in sorted(rec.controls.items())
        if not c.seeded and c.target[0] == "entry"
    ]
    table = Path(bundle, src.table)
    if not named or src.kind != "registry" or not table.is_file():
        return
    try:
        known = leaderboard_ids(table, [str(c) for c in src.entry], None)
    except AuditError:
        return  # an entry column missing: the contestants' refusal, as before
    for name, entry in named:
        if entry not in known:
            raise AuditError(
                "bad_prereg",
                prereg,
                f"control {name!r} targets entry {entry!r}, which is not an entry of the"
                f" registry table ({table}); nothing was written",
            )


def check_control_targets(kind: Kind, rec: Any, bundle: str) -> None:
    """control, before the lock of a leaderboard arm: each control's targets chosen from
    the shipped bundle by the controls' own code (controls/before_lock.py, the lock's too:
    the rows and instances the prediction job will choose, in its order, the prereg's
    seed), refused with the line that job would print: a seeded control no row can take,
    a named row that cannot take it (a flip, nullify or shift needing more instances than
    the row has). A bundle a rule builds is the lock's to judge. ``rec``: the checked
    prereg's frozen record, the one the workflow parsed (workflow/rules/common.smk), as
    the job's."""
    from controls import before_lock

    if kind is LEADERBOARD:
        before_lock.check_leaderboard(rec, bundle)


def check_trials_before_lock(rec: Any, bundle: str) -> None:
    """A trials arm's tables (audit/trials/preflight_source.py), then its controls on the
    table judged there (controls/before_lock.py, the lock's too): each control predicted
    by the controls' own code from the shipped registry table, or from the trial table
    adapted in memory (its parquet bytes, as the adapter job writes them), in the job's
    order, the prereg's seed; a control no entry or run can take, a named one that cannot
    take it, or a policy it cannot predict is refused with the line the controls' job
    would print. A table not judged there (past the adapter's bound, or left to the lock)
    is the lock's to judge. ``rec``: the checked prereg's frozen record
    (workflow/rules/common.smk)."""
    from audit.trials.preflight_source import check_before_lock as check_tables

    table = check_tables(rec, bundle)
    if table is None or not rec.controls:
        return
    from controls import before_lock

    before_lock.check_trials(rec, table)


def check_jobs(jobs: tuple[str, str] | None) -> None:
    """missing_file: a trials source's jobs folder (as the prereg names it, its path) that
    is not in the bundle folder; nothing for an arm without one."""
    if jobs is not None and not Path(jobs[1]).is_dir():
        raise AuditError("missing_file", jobs[1], "no jobs directory in the bundle folder")


def check_before_lock(kind: Kind, rec: Any, prereg: str, bundle: str) -> None:
    """What an arm not yet locked will do with its shipped bundle, before the lock writes
    anything, each by the lock's own code: a leaderboard bundle's fetch record, if it
    holds one (``hf-source.json``: every file it records there with the sha256 it
    records, audit/bundles/hf_source.py), then its tables, by the checks the lock runs
    itself on a bundle a rule builds (audit/cells/bundle_checks.py, one place for both),
    the rows the disclosure names (audit/core/disclosure.py check_leaderboard), then a
    declared publisher_hash's (audit/bundles/publisher_hash.py judge); a trials arm's
    disclosed rows, then a registry's controls' entries (bad_prereg). ``rec``: the
    checked prereg's frozen record, the one the workflow parsed
    (workflow/rules/common.smk), the file not read again."""
    if kind is LEADERBOARD:
        from audit.bundles import hf_source

        hf_source.check(bundle)  # a shipped bundle holding a fetch record: the lock's check
        bundle_checks.check(rec, prereg, bundle)
        lb = Path(bundle, rec.bundle.leaderboard)
        disclosure.check_leaderboard(rec.disclosure, prereg, lb, [rec.bundle.row_id], None)
        ph = rec.publisher_hash
        if ph is not None:  # the recipe's types and the published digest's file (the lock's)
            from audit.bundles import publisher_hash

            spec = {"recipe": ph.recipe, "table": ph.table, "file": ph.file}
            publisher_hash.judge(spec, bundle, rec.bundle.table(ph.table))
    else:
        board = rec.leaderboard  # the lock's check, before its tables' (audit/lock/trials.py)
        table = None if board is None else Path(bundle, board.table)
        key = list(board.row_key) if board is not None else []
        types = None if board is None or board.types is None else dict(board.types)
        disclosure.check_leaderboard(rec.disclosure, prereg, table, key, types)
        if rec.source.kind == "registry":
            check_registry_entries(rec, prereg, bundle)
