"""The conformance suite's machinery: load the cases, build each one's input, run its commands.

A case is a folder ``tests/conformance/<case>_fail/`` (or ``_pass/``) holding
- ``README.md``: one or two lines, why the input must be refused (or what it
  must give instead);
- ``expect.yaml``: the commands that run on it and how each must end;
- ``build.py``: ``build(ws)``, which makes the bad input from the demo bundle
  (and prereg/demo.yaml) in a fresh working folder ``ws.dir``.

expect.yaml keys:
  commands   list of: contestants (both, each as its own process), lock
             (python -m audit lock), verify-ledger (python -m audit
             verify-ledger), snakemake (snakemake -n on the repository's
             Snakefile in ws.dir, config/config.yaml copied there)
  status     the exit status every command must end with: 2 unusable input,
             1 failed verification, 0 ran
  class      the error class of the one stderr line (absent when status is 0)
  file       the <file> of that line, as given on the command line (paths are
             relative to ws.dir); a mapping command -> file when they differ
  detail     optional: a text the line's detail must contain
  skip_if_root  optional: true when root (who reads every file) cannot run it
  same_as_demo  optional (status 0): outputs byte-identical to the demo's
  census     optional (status 0): "row_id|column" -> class in census.csv
  outcome    optional (status 0): the outcome in words, for the README table
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEMO_PREREG = ROOT / "prereg" / "demo.yaml"
IMPLS = ("pandas", "pyarrow")
COMMANDS = ("contestants", "lock", "verify-ledger", "snakemake")
OUTPUTS = ("cells.csv", "census.csv", "nulls.csv")
LEDGER = "results/demo/ledger.jsonl"
SNAKEMAKE_PROFILE_NOTICE = "Using workflow specific profile "


@dataclass
class Case:
    name: str
    path: Path
    why: str
    expect: dict[str, Any]

    @property
    def commands(self) -> list[str]:
        return list(self.expect["commands"])

    @property
    def status(self) -> int:
        return int(self.expect["status"])

    @property
    def error_class(self) -> str | None:
        return self.expect.get("class")

    def file_for(self, command: str) -> str | None:
        f = self.expect.get("file")
        return f.get(command) if isinstance(f, dict) else f

    def builder(self) -> Callable[[Workspace], None]:
        spec = importlib.util.spec_from_file_location(
            f"conformance_{self.name}", self.path / "build.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.build


def load_cases() -> list[Case]:
    """Every case folder, sorted by name."""
    cases = []
    for d in sorted(p for p in HERE.iterdir() if p.is_dir() and (p / "expect.yaml").is_file()):
        why = " ".join((d / "README.md").read_text(encoding="utf-8").split())
        expect = yaml.safe_load((d / "expect.yaml").read_text(encoding="utf-8"))
        cases.append(Case(d.name, d, why, expect))
    return cases


def check_case_folder(case: Case) -> list[str]:
    """What is wrong with a case folder's form (empty when it is well-formed)."""
    problems = []
    e = case.expect
    lines = [x for x in (case.path / "README.md").read_text(encoding="utf-8").splitlines() if x]
    if not 1 <= len(lines) <= 2:
        problems.append("README.md must hold one or two lines")
    if not (case.path / "build.py").is_file():
        problems.append("no build.py")
    unknown = set(e) - {
        "commands", "status", "class", "file", "detail", "skip_if_root",
        "same_as_demo", "census", "outcome",
    }  # fmt: skip
    if unknown:
        problems.append(f"unknown keys in expect.yaml: {sorted(unknown)}")
    if not e.get("commands") or set(e["commands"]) - set(COMMANDS):
        problems.append(f"commands must be a list from {COMMANDS}")
    if e.get("status") not in (0, 1, 2):
        problems.append("status must be 0, 1 or 2")
    failing = e.get("status") != 0
    if failing != case.name.endswith("_fail") or (not failing and not case.name.endswith("_pass")):
        problems.append("a case ending in _fail must fail (status 1 or 2), one in _pass exit 0")
    if failing and not (e.get("class") and e.get("file")):
        problems.append("a failing case names its class and file")
    if not failing and not (e.get("outcome") and (e.get("census") or e.get("same_as_demo"))):
        problems.append("a passing case states its outcome and checks it (census or same_as_demo)")
    return problems


@dataclass
class Workspace:
    """A fresh folder holding a copy of the demo bundle (bundle/) and prereg (prereg.yaml)."""

    dir: Path
    expected_blake3: str | None = None  # for `lock`; default: the prereg's own blake3
    args: dict[str, list[str]] = field(default_factory=dict)  # extra arguments per command
    config: dict[str, str] = field(default_factory=dict)  # --config for `snakemake`

    @property
    def bundle(self) -> Path:
        return self.dir / "bundle"

    @property
    def prereg(self) -> Path:
        return self.dir / "prereg.yaml"

    @property
    def leaderboard_file(self) -> Path:
        return self.bundle / "leaderboard.parquet"

    @property
    def instances_file(self) -> Path:
        return self.bundle / "instances.parquet"

    def leaderboard(self) -> pl.DataFrame:
        return pl.read_parquet(self.leaderboard_file)

    def instances(self) -> pl.DataFrame:
        return pl.read_parquet(self.instances_file)

    def write_leaderboard(self, df: pl.DataFrame) -> None:
        df.write_parquet(self.leaderboard_file, compression="zstd", statistics=False)

    def write_instances(self, df: pl.DataFrame) -> None:
        df.write_parquet(self.instances_file, compression="zstd", statistics=False)

    def prereg_doc(self) -> dict[str, Any]:
        return yaml.safe_load(self.prereg.read_text(encoding="utf-8"))

    def write_prereg(self, doc: dict[str, Any]) -> None:
        self.prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")

    def duplicate_column(self, file: Path, name: str) -> None:
        """Give the table a second column called ``name`` (no dataframe library writes one).

        A copy of the column is written under a placeholder name of the same
        length, then the placeholder is renamed in the footer's bytes."""
        assert len(name) >= 2
        placeholder = name[:-1] + ("#" if name[-1] != "#" else "%")
        df = pl.read_parquet(file)
        df.with_columns(pl.col(name).alias(placeholder)).write_parquet(
            file, compression="zstd", statistics=False
        )
        data = file.read_bytes()
        assert data.count(placeholder.encode()) >= 1
        file.write_bytes(data.replace(placeholder.encode(), name.encode()))

    def make_ledger(self) -> Path:
        """A real ledger: the lock of this bundle and prereg, then two recorded outputs."""
        from audit.files import file_blake3
        from audit.lock.cells import lock
        from audit.lock.shared import read_prereg
        from audit.seal import ledger

        here = Path.cwd()
        os.chdir(self.dir)  # ledger subjects are relative to the run's folder
        try:
            events = "results/demo/events/lock.json"
            prereg = read_prereg("prereg.yaml", file_blake3("prereg.yaml"))
            lock(prereg, "bundle", "results/demo/lock", events, "results")
            Path(LEDGER).write_text(ledger.text(ledger.chain(ledger.read_events(events))))
            for name in ("census.csv", "agreement.json"):
                Path("results/demo", name).write_text(f"{name}: demo output\n", encoding="utf-8")
                ledger.append(LEDGER, "output_recorded", f"results/demo/{name}")
        finally:
            os.chdir(here)
        return self.dir / LEDGER

    def ledger_lines(self) -> list[str]:
        return (self.dir / LEDGER).read_text(encoding="utf-8").splitlines(keepends=True)

    def write_ledger_lines(self, lines: list[str]) -> None:
        (self.dir / LEDGER).write_text("".join(lines), encoding="utf-8")


def new_workspace(path: Path, demo_bundle: Path) -> Workspace:
    path.mkdir(parents=True)
    shutil.copytree(demo_bundle, path / "bundle")
    shutil.copyfile(DEMO_PREREG, path / "prereg.yaml")
    return Workspace(path)


@dataclass
class Outcome:
    """One process's end: exit status, output, and the one error line if there is one."""

    who: str
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        """stderr's lines, less Snakemake's own notice that it read profiles/default."""
        return [
            x
            for x in self.stderr.splitlines()
            if x.strip() and not x.startswith(SNAKEMAKE_PROFILE_NOTICE)
        ]

    @property
    def error_class(self) -> str | None:
        if len(self.lines) == 1 and self.lines[0].startswith("error["):
            return self.lines[0][len("error[") :].split("]", 1)[0]
        return None

    def __str__(self) -> str:
        err = self.stderr.strip()[-1500:]
        return f"{self.who}: exit {self.code}, stderr: {err!r}"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def _blake3(path: Path) -> str:
    import blake3

    return blake3.blake3(path.read_bytes()).hexdigest()


def commands_for(command: str, ws: Workspace) -> list[tuple[str, list[str]]]:
    """(who, argv) of the processes one command starts, each run in ws.dir."""
    extra = ws.args.get(command, [])
    if command == "contestants":
        return [
            (
                impl,
                [
                    str(ROOT / ".venvs" / f"impl-{impl}" / "bin" / "python"),
                    "-m",
                    f"impl_{impl}",
                    "--prereg",
                    "prereg.yaml",
                    "--bundle",
                    "bundle",
                    "--out",
                    f"out/{impl}",
                    *extra,
                ],
            )
            for impl in IMPLS
        ]
    py = [sys.executable, "-m", "audit"]
    if command == "lock":
        expected = ws.expected_blake3
        if expected is None:
            expected = _blake3(ws.prereg) if ws.prereg.is_file() else "0" * 64
        argv = [
            *py,
            "lock",
            "--kind",
            "leaderboard",
            "--prereg",
            "prereg.yaml",
            "--expected-blake3",
            expected,
            "--bundle",
            "bundle",
            "--out-dir",
            "results/demo/lock",
            "--events",
            "results/demo/events/lock.json",
            *extra,
        ]
        return [("lock", argv)]
    if command == "verify-ledger":
        return [("verify-ledger", [*py, "verify-ledger", LEDGER, *extra])]
    if command == "snakemake":
        snakemake = str(Path(sys.executable).with_name("snakemake"))
        config = [f"{k}={v}" for k, v in ws.config.items()]
        argv = [
            snakemake,
            "-n",
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(ws.dir),
            "--cores",
            "1",
            *(["--config", *config] if config else []),
            *extra,
        ]
        return [("snakemake", argv)]
    raise ValueError(f"unknown command {command!r}")


def prepare(command: str, ws: Workspace) -> None:
    """What a command needs in ws.dir besides the case's input (snakemake: its config)."""
    if command == "snakemake":
        (ws.dir / "config").mkdir(exist_ok=True)
        shutil.copyfile(ROOT / "config" / "config.yaml", ws.dir / "config" / "config.yaml")
        (ws.dir / "prereg").mkdir(exist_ok=True)
        shutil.copyfile(DEMO_PREREG, ws.dir / "prereg" / "demo.yaml")


def run_command(command: str, ws: Workspace, timeout: float = 300) -> list[Outcome]:
    """Start the command's processes together and wait for all of them."""
    procs = [
        (
            who,
            subprocess.Popen(
                argv,
                cwd=ws.dir,
                env=_env(),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
        for who, argv in commands_for(command, ws)
    ]
    outcomes = []
    for who, p in procs:
        out, err = p.communicate(timeout=timeout)
        outcomes.append(Outcome(who, p.returncode, out, err))
    return outcomes


def tree(path: Path) -> dict[str, str]:
    """Every file and folder under path, with a digest of each file's bytes."""
    out = {}
    for p in sorted(path.rglob("*")):
        rel = p.relative_to(path).as_posix()
        if p.is_symlink() or not p.is_dir():
            try:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            except OSError:
                out[rel] = "unreadable"
        else:
            out[rel] = "dir"
    return out


def census_classes(path: Path) -> dict[str, str]:
    with path.open(newline="", encoding="utf-8") as f:
        return {f"{r['row_id']}|{r['column']}": r["class"] for r in csv.DictReader(f)}
