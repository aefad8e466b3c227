"""A contestant's own environment: synced from uv.lock, checked complete, then marked.

``python -m audit.core.envs sync --project P --venv V --group G --marker M`` checks
V first: uv agrees the environment matches the lock (``uv sync --check``), and
every file each installed distribution lists in its RECORD is there with the
size listed. An environment that passes is marked as it is; any other gets
``uv sync --frozen --only-group G --compile-bytecode`` and is checked again. A
sync interrupted midway (a kill, a full disk) can leave a distribution's
metadata without all its files, which a later ``uv sync`` takes as installed;
then the environment is reinstalled (``--reinstall``) and checked again. What a
reinstall does not mend (a distribution a killed sync was removing: its RECORD
left, its METADATA gone, so uv no longer sees it to remove it) is mended by
making the environment afresh: its folder removed, synced again. Only a
complete environment gets its marker M, written atomically: it names the
distributions checked, so ``stale_marker`` can tell, when a run starts, that
the environment behind an old marker has since lost files.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from audit.errors import FAILED, AuditError, disk_full, report
from audit.files import write_atomic

SHOWN = 3  # problems quoted in a message


def _site_packages(venv: Path) -> list[Path]:
    return sorted(venv.glob("lib/python*/site-packages"))


def distributions(venv: str | Path) -> list[str]:
    """The installed distributions' metadata folders (name-version.dist-info)."""
    return sorted(d.name for sp in _site_packages(Path(venv)) for d in sp.glob("*.dist-info"))


def incomplete(venv: str | Path, names: list[str] | None = None) -> list[str]:
    """What is missing from the environment: files a RECORD lists that are absent or
    of another size, and (when names are given) distributions no longer installed."""
    problems = []
    found = {}
    for sp in _site_packages(Path(venv)):
        for d in sp.glob("*.dist-info"):
            found[d.name] = (sp, d)
    if names is not None:
        problems += [f"{n} is not installed" for n in names if n not in found]
    if not found:
        problems.append(f"{venv}: no installed distribution")
    for name in sorted(found) if names is None else [n for n in names if n in found]:
        sp, d = found[name]
        try:
            with (d / "RECORD").open(newline="", encoding="utf-8") as f:
                rows = list(csv.reader(f))
        except OSError:
            problems.append(f"{name}: no RECORD")
            continue
        base = str(sp)
        for row in rows:
            if not row or not row[0]:
                continue
            size = row[2] if len(row) > 2 else ""
            try:  # os.path.join keeps an absolute entry as it is
                actual = os.stat(os.path.join(base, row[0])).st_size
            except OSError:
                problems.append(f"{name}: {row[0]} is missing")
                continue
            if size.isdigit() and actual != int(size):
                problems.append(f"{name}: {row[0]} has {actual} bytes, not {size}")
    return problems


def stale_marker(marker: str | Path, venv: str | Path) -> str | None:
    """Why an existing marker no longer vouches for its environment (None: it does)."""
    try:
        names = json.loads(Path(marker).read_text(encoding="utf-8"))["distributions"]
    except (OSError, ValueError, KeyError, TypeError):
        names = None  # an older, empty marker: check what is installed
    problems = incomplete(venv, names if isinstance(names, list) else None)
    return "; ".join(problems[:SHOWN]) if problems else None


def _uv(project: str, venv: str, group: str, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["UV_PROJECT_ENVIRONMENT"] = venv
    argv = [os.environ.get("UV", "uv"), "sync", "--project", project, "--frozen"]
    argv += ["--only-group", group, *extra]
    p = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    sys.stderr.write(p.stdout + p.stderr)
    return p


def _problems(project: str, venv: str, group: str) -> list[str]:
    check = _uv(project, venv, group, "--check")
    problems = [] if check.returncode == 0 else ["uv sync --check: not in sync with uv.lock"]
    return problems + incomplete(venv)


def sync(project: str, venv: str, group: str, marker: str) -> int:
    # an environment already in sync and complete is marked as it is (no sync, no
    # compiling of every module again); any other is synced, then checked
    problems = _problems(project, venv, group) if Path(venv).is_dir() else ["no environment"]
    if problems:
        done = _uv(project, venv, group, "--compile-bytecode")
        if done.returncode != 0:
            raise AuditError("env_sync_failed", venv, f"uv sync exited {done.returncode}", FAILED)
        problems = _problems(project, venv, group)
    if problems:
        print(f"note: {venv}: incomplete ({'; '.join(problems[:SHOWN])}); reinstalling")
        again = _uv(project, venv, group, "--compile-bytecode", "--reinstall")
        if again.returncode != 0:
            msg = f"uv sync --reinstall exited {again.returncode}"
            raise AuditError("env_sync_failed", venv, msg, FAILED)
        problems = _problems(project, venv, group)
    if problems and (Path(venv) / "pyvenv.cfg").is_file():
        # what even a reinstall leaves: a distribution a killed sync was removing
        # (its RECORD left, its files and METADATA gone), which uv no longer
        # uninstalls; the environment is made only from uv.lock, so it is made afresh
        print(f"note: {venv}: still incomplete ({'; '.join(problems[:SHOWN])}); made afresh")
        shutil.rmtree(venv)
        fresh = _uv(project, venv, group, "--compile-bytecode")
        if fresh.returncode != 0:
            raise AuditError("env_sync_failed", venv, f"uv sync exited {fresh.returncode}", FAILED)
        problems = _problems(project, venv, group)
    if problems:
        raise AuditError("env_incomplete", venv, "; ".join(problems[:SHOWN]), FAILED)
    doc = {"group": group, "distributions": distributions(venv)}
    write_atomic(marker, json.dumps(doc, indent=1) + "\n")
    print(f"{venv}: {len(doc['distributions'])} distributions, complete")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.core.envs", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sync", help="sync a contestant's environment, check it, mark it")
    p.add_argument("--project", required=True, help="the repository (uv.lock)")
    p.add_argument("--venv", required=True, help="the environment's folder")
    p.add_argument("--group", required=True, help="the dependency group, e.g. impl-pandas")
    p.add_argument("--marker", required=True, help="written only once the environment is complete")
    args = ap.parse_args(argv)
    try:
        return sync(args.project, args.venv, args.group, args.marker)
    except AuditError as e:
        return report(e)
    except OSError as e:
        full = disk_full(e)
        if full is None:
            raise
        return report(full)


if __name__ == "__main__":
    sys.exit(main())
