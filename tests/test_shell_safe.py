"""Every value that reaches a shell is quoted: hostile paths either work or are refused.

Each job's command is a shell line built from the config (bundle, prereg,
annex, arm), the clone's own folder and the prereg's names. A value written to
run a command (``$(touch X)``, ``; touch X``, backticks) must run nothing: it
is refused as ``bad_config`` before any job, or it is a file name like any
other. Without `:q` on the rules' fields, the end-to-end run below creates the
files X1, X2 and X3 (and fails: the quote splits every command).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, SNAKEMAKE, annex_head, clone_repo, run_audit

# One value holding every way of running a command from a shell line, plus a
# space and both quotes (which alone make an unquoted command fail).
HOSTILE = "b 'q\" $(touch X1) ; touch X2 `touch X3`"
MARKERS = ("X1", "X2", "X3")
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
# The demo's census, worked by hand (audit/bundles/demo.py).
DEMO_CLASSES = {
    "structural": 12,
    "no_antecedent": 16,
    "reproduced": 23,
    "divergent": 3,
    "no_data": 2,
}


def _snakemake(
    work: Path, *args: str, snakefile: Path = ROOT / "Snakefile", timeout: float = 900
) -> subprocess.CompletedProcess:
    (work / "config").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "config" / "config.yaml", work / "config" / "config.yaml")
    argv = [SNAKEMAKE, "--snakefile", str(snakefile), "--directory", str(work), "--cores", "2"]
    return subprocess.run(
        [*argv, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def _created(top: Path) -> list[str]:
    return sorted(str(p) for m in MARKERS for p in top.rglob(m))


def _one_error_line(p: subprocess.CompletedProcess) -> str:
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1, p.stderr[-2000:]
    assert "Traceback" not in p.stderr
    return lines[0]


@pytest.mark.parametrize("key", [*sorted(SCHEMA["properties"]), "unknown"])
def test_a_command_in_any_config_value_runs_nothing(key: str, tmp_path: Path) -> None:
    # Each config key (and an unknown one) given `$(touch X1) ; touch X2 ...`:
    # the run stops before any job, with one line, and no X file exists.
    work = tmp_path / "work"
    config = [f"{key}={HOSTILE}"]
    if key == "annex":
        config += ["seat=second", f"head={'a' * 64}"]
    p = _snakemake(work, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    line = _one_error_line(p)
    # a value that cannot be a path of its kind is bad_config; a path that is
    # simply not there is missing_file (the hostile folder does not exist here)
    # (seat_key is a key file's path, read by the seal, and tsa_cert a PEM file's path, read
    # only beside a tsa_url: for both the prereg's absence comes first)
    paths = ("bundle", "prereg", "annex", "seat_key", "tsa_cert")
    want = "missing_file" if key in paths else "bad_config"
    assert line.startswith(f"error[{want}]"), line
    assert _created(tmp_path) == []
    assert not (work / "results").exists()


@pytest.mark.parametrize(
    "arm",
    ["envs", "demo-bundle", "a" * 101, "../up"],
)
def test_an_arm_that_is_not_a_safe_folder_name_is_bad_config(arm: str, tmp_path: Path) -> None:
    # envs, logs and demo-bundle are folders results/ holds for every arm: an arm
    # of that name would write into them (both pass the old schema).
    p = _snakemake(
        tmp_path, "-n", "--config", f"arm={arm}", f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    )
    assert p.returncode == 2, p.stdout[-2000:]
    line = _one_error_line(p)
    assert line.startswith("error[bad_config]: --config: at arm:"), line
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    ("key", "bad"), [("bundle", "new\nline"), ("prereg", "tab\there"), ("bundle", "brace{x}")]
)
def test_a_path_snakemake_cannot_carry_is_bad_config(key: str, bad: str, tmp_path: Path) -> None:
    # Through a config file, where a newline survives (on the command line
    # Snakemake's YAML reading folds it into a space). The folder exists, so
    # the only reason to stop is the name itself.
    (tmp_path / bad).mkdir()
    (tmp_path / "extra.yaml").write_text(yaml.safe_dump({key: bad}), encoding="utf-8")
    p = _snakemake(tmp_path, "-n", "--configfile", str(tmp_path / "extra.yaml"))
    assert p.returncode == 2, p.stdout[-2000:]
    line = _one_error_line(p)
    assert line.startswith(f"error[bad_config]: {tmp_path / 'extra.yaml'}: at {key}: {bad!r}: "), (
        line
    )


@pytest.mark.slow
def test_hostile_clone_bundle_prereg_and_annex_paths_work_end_to_end(
    impl_envs, tmp_path: Path
) -> None:
    # The clone (so every job's PYTHONPATH and each contestant's interpreter),
    # the working folder, the bundle and the prereg all sit under folders named
    # HOSTILE. The demo runs to its hand-worked census and nothing is executed.
    clone = clone_repo(tmp_path / f"clone {HOSTILE}")
    work = tmp_path / f"work {HOSTILE}"
    data = work / HOSTILE
    assert run_audit("demo-bundle", "--out", data / "bundle").code == 0
    shutil.copyfile(ROOT / "prereg" / "demo.yaml", data / "demo.yaml")
    config = [f"bundle={HOSTILE}/bundle", f"prereg={HOSTILE}/demo.yaml"]
    p = _snakemake(work, "--config", *config, snakefile=clone / "Snakefile")
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert _created(tmp_path) == []
    res = work / "results" / "demo"
    assert json.loads((res / "census.json").read_text())["classes"] == DEMO_CLASSES
    assert run_audit("verify", res / "annex").code == 0
    assert (clone / ".venvs" / "impl-pandas" / "bin" / "python").exists()  # impl_env ran there

    # A second seat whose annex sits under a HOSTILE folder: the lock checks the
    # bundle against it (--expect-bundle <annex>/lock/lock.json in the command).
    annex = work / "annexes" / HOSTILE
    shutil.copytree(res / "annex", annex)
    second = [
        "seat=second",
        "arm=second",
        f"annex=annexes/{HOSTILE}",
        f"head={annex_head(annex)}",
        f"bundle={HOSTILE}/bundle",
    ]
    target = "results/second/lock/lock.json"
    q = _snakemake(work, target, "--config", *second, snakefile=clone / "Snakefile")
    assert q.returncode == 0, q.stdout[-3000:] + q.stderr[-3000:]
    assert _created(tmp_path) == []
    lock = json.loads((work / target).read_text())
    first = json.loads((res / "lock" / "lock.json").read_text())
    assert lock["prereg"]["blake3"] == first["prereg"]["blake3"]
