"""Run the whole audit on a bundle: the packaged Snakefile through Snakemake.

The same workflow as `uv run snakemake --cores 2` in a clone, run in DIRECTORY
(default: the current one): results go to DIRECTORY/results/<arm>/. Without
--bundle and --prereg it audits the embedded demo bundle. The contestants'
environments are made by uv from the shipped uv.lock on the first run (uv must
be on PATH: `pip install uv`). The prereg's blake3 is the one given with
--prereg-blake3, else the file's blake3 now (printed): a later edit of the prereg
is then refused on the same arm (arm_locked). Snakemake's command line is
printed before it runs.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HELP = "run the whole audit on a bundle (the packaged Snakefile through Snakemake)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bundle",
        default=None,
        help="the folder holding the bundle's files (or hf://datasets/<owner>/<name>@<commit>);"
        " with --prereg; both absent: the embedded demo",
    )
    p.add_argument("--prereg", default=None, help="the preregistration file (YAML); with --bundle")
    p.add_argument(
        "--prereg-blake3",
        default=None,
        help="the blake3 the prereg must have (default: the file's blake3 now)",
    )
    p.add_argument(
        "--arm",
        default=None,
        help="the arm's name, results/<arm>/ (default: the prereg's file name without .yaml)",
    )
    p.add_argument("--cores", type=int, default=2, help="cores Snakemake may use (default 2)")
    p.add_argument(
        "--directory",
        default=".",
        help="where results/ is written and the run's state kept (default: the current folder)",
    )
    p.add_argument(
        "--config",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="more run settings, as Snakemake's --config (e.g. null_shards=2 seat=second"
        " annex=DIR head=HEX; the keys: workflow/schemas/config.schema.yaml)",
    )
    p.add_argument(
        "-n", "--dry-run", action="store_true", help="list the jobs that would run, run none"
    )


def _arm(prereg: str) -> str:
    return re.sub(r"[^a-z0-9._-]", "-", Path(prereg).stem.lower()).lstrip("._-") or "arm"


def command(args: argparse.Namespace, root: Path) -> list[str]:
    """Snakemake's command line for these arguments."""
    from audit.errors import AuditError
    from audit.files import file_digests

    argv = [sys.executable, "-m", "snakemake", "--snakefile", str(root / "Snakefile")]
    argv += ["--workflow-profile", str(root / "profiles" / "default")]
    argv += ["--configfile", str(root / "config" / "config.yaml"), "--cores", str(args.cores)]
    if args.dry_run:
        argv.append("--dry-run")
    if (args.bundle is None) != (args.prereg is None):
        raise AuditError("bad_args", "audit", "name both --bundle and --prereg, or neither (demo)")
    if args.prereg is None:  # the demo: the shipped config, its prereg found in the package
        config = [f"prereg={root / 'prereg' / 'demo.yaml'}"]
        config += [f"arm={args.arm}"] if args.arm else []
    else:
        bundle, prereg = args.bundle, args.prereg
        if Path(args.directory).resolve() != Path.cwd().resolve():
            # Given relative to the current folder; Snakemake runs in --directory.
            prereg = os.path.abspath(prereg)
            bundle = bundle if bundle.startswith("hf://") else os.path.abspath(bundle)
        if not Path(args.prereg).is_file():
            raise AuditError("missing_file", args.prereg, "no such prereg")
        expected = args.prereg_blake3 or file_digests(args.prereg)["blake3"]
        if not args.prereg_blake3:
            print(f"prereg {args.prereg}: blake3 {expected}", file=sys.stderr)
        config = [
            f"arm={args.arm or _arm(args.prereg)}",
            f"bundle={bundle}",
            f"prereg={prereg}",
            f"prereg_blake3={expected}",
        ]
    return argv + ["--config", *config, *args.config]


def run(args: argparse.Namespace) -> int:
    from audit.errors import AuditError
    from secondseat.project import root as project_root

    workdir = Path(args.directory)
    if not workdir.is_dir():
        raise AuditError("missing_file", args.directory, "no such folder")
    root = project_root()
    argv = command(args, root)
    with tempfile.TemporaryDirectory(prefix="secondseat-bin-") as shim:
        # The rules run `python -m audit ...`: this interpreter, whatever PATH holds. A
        # script, not a link: a venv's interpreter finds its environment by the path
        # it was started from.
        script = Path(shim, "python")
        script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
        script.chmod(0o755)
        path = os.pathsep.join([shim, str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        if shutil.which(os.environ.get("UV", "uv"), path=path) is None:
            raise AuditError(
                "missing_tool",
                "uv",
                "the contestants' environments are made with uv: pip install uv",
            )
        env = {**os.environ, "PATH": path}
        env.pop("VIRTUAL_ENV", None)
        print("running: " + " ".join(argv), file=sys.stderr)
        return subprocess.run(argv, cwd=workdir, env=env, check=False).returncode
