"""impl_pyarrow has one spine: one prereg parser (impl_pyarrow/prereg/) and one errors
module, used by its leaderboard part and its trials part alike, and the parser checks
each prereg against its kind's JSON Schema (workflow/schemas/) before its own checks.

Each contestant run is its own process in the contestant's environment, as the
workflow runs it. The schema-only violations below were accepted by the two parsers
this replaces (they never read `name`'s pattern of a leaderboard prereg, nor the
text of a trials prereg's disclosure), so these tests fail without the change.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, impl_python, run

PKG = ROOT / "impl_pyarrow"
REGISTRY_BUNDLE = ROOT.parent / "shared" / "bundles" / "skillsbench-registry"
LINE = re.compile(r"^error\[(?P<cls>[a-z_]+)\]: (?P<file>[^:]+): (?P<detail>.+)$")


def _imports(path: Path) -> set[str]:
    """Every module a source file imports, resolved to its dotted name."""
    here = path.relative_to(ROOT).with_suffix("").parts
    package = here[:-1]  # a module's package; an __init__'s is its own folder
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found.add(mod)
            found |= {f"{mod}.{a.name}" for a in node.names}
    return found


def test_one_prereg_parser_and_one_errors_module() -> None:
    # the parsers and the error module the trials part kept are gone ...
    assert not (PKG / "prereg.py").exists()
    assert not (PKG / "trials" / "spec.py").exists()
    assert not (PKG / "trials" / "errors.py").exists()
    modules = sorted(PKG.rglob("*.py"))
    # ... only the parser reads the YAML file (plain_yaml) or the schemas (jsonschema) ...
    for path in modules:
        inside = path.parent == PKG / "prereg"
        names = _imports(path)
        if not inside:
            assert not {m for m in names if m.startswith("impl_pyarrow.plain_yaml")}, path
            assert not {m for m in names if m.startswith("jsonschema")}, path
    # ... and both parts take their prereg types from it, their errors from errors.py
    trials_imports = set().union(*(_imports(p) for p in (PKG / "trials").glob("*.py")))
    assert "impl_pyarrow.prereg.trials" in trials_imports
    assert "impl_pyarrow.errors" in trials_imports
    leaderboard_imports = _imports(PKG / "run.py") | _imports(PKG / "shards.py")
    assert "impl_pyarrow.prereg.cells" in leaderboard_imports
    for kind in ("cells", "trials"):
        assert "impl_pyarrow.prereg.document" in _imports(PKG / "prereg" / f"{kind}.py")


def test_schema_files_sit_where_the_contestant_looks() -> None:
    """In a clone, and in the clone-shaped folder `secondseat audit` lays out for an
    installed run (secondseat/project.py: the package beside workflow/)."""
    code = (
        "from impl_pyarrow.prereg import document as d\n"
        "print(d.SCHEMAS)\n"
        "print(all((d.SCHEMAS / f).is_file() for f in d.SCHEMA_FILES.values()))\n"
    )
    res = run([str(impl_python("pyarrow")), "-c", code])
    assert res.code == 0, res.stderr
    where, ok = res.stdout.split()
    assert Path(where) == PKG.parent / "workflow" / "schemas" and ok == "True"


def test_a_clone_shaped_copy_finds_its_schemas(impl_envs, demo_bundle, tmp_path) -> None:
    """The package copied beside workflow/schemas/ (as secondseat/project.py lays out an
    installed run) runs; without the schemas it refuses with one line, naming the file."""
    folder = tmp_path / "project"
    shutil.copytree(PKG, folder / "impl_pyarrow", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(folder)}

    def recompute(out: str) -> subprocess.CompletedProcess:
        cmd = [str(impl_python("pyarrow")), "-m", "impl_pyarrow", "--prereg",
               str(ROOT / "prereg" / "demo.yaml"), "--bundle", str(demo_bundle),
               "--out", str(tmp_path / out), "--no-draws"]  # fmt: skip
        return subprocess.run(
            cmd, check=False, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )

    res = recompute("without")
    lines = res.stderr.splitlines()
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    schema = folder / "workflow" / "schemas" / "prereg.schema.yaml"
    assert lines[0].startswith(f"error[missing_file]: {schema}: "), lines[0]
    shutil.copytree(ROOT / "workflow" / "schemas", folder / "workflow" / "schemas")
    res = recompute("with")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "with" / "cells.csv").is_file() and not (tmp_path / "without").exists()


def _refusal(res) -> tuple[str, str, str]:
    lines = res.stderr.splitlines()
    assert res.code == 2 and len(lines) == 1, res.stderr
    m = LINE.match(lines[0])
    assert m, lines[0]
    return m["cls"], m["file"], m["detail"]


def _demo_prereg(tmp: Path, **changes) -> Path:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc.update(changes)
    p = tmp / "prereg.yaml"
    p.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return p


def _pyarrow(*args: object):
    return run([str(impl_python("pyarrow")), "-m", "impl_pyarrow", *map(str, args)])


def test_leaderboard_prereg_refused_by_its_schema(impl_envs, demo_bundle, tmp_path) -> None:
    # control: the demo prereg as it is runs clean, so the refusal below is the name's
    ok = _pyarrow("--prereg", _demo_prereg(tmp_path), "--bundle", demo_bundle,
                  "--out", tmp_path / "ok", "--no-draws")  # fmt: skip
    assert ok.code == 0, ok.stderr
    bad = _demo_prereg(tmp_path, name="Not A Slug")  # the schema's name pattern only
    res = _pyarrow("--prereg", bad, "--bundle", demo_bundle, "--out", tmp_path / "out")
    cls, file, detail = _refusal(res)
    assert (cls, file) == ("bad_prereg", str(bad))
    assert detail.startswith("at name: ") and "does not match" in detail, detail
    assert not (tmp_path / "out").exists()


def test_wrong_kind_is_refused_by_either_part(impl_envs, demo_bundle, tmp_path) -> None:
    trials = ROOT / "prereg" / "skillsbench-registry.yaml"
    res = _pyarrow("--prereg", trials, "--bundle", demo_bundle, "--out", tmp_path / "a")
    assert _refusal(res)[0] == "bad_prereg"
    assert "a trials prereg" in _refusal(res)[2]
    demo = ROOT / "prereg" / "demo.yaml"
    res = _pyarrow("trials", "--prereg", demo, "--bundle", demo_bundle, "--out", tmp_path / "b")
    assert _refusal(res)[0] == "bad_prereg"
    assert "a leaderboard prereg" in _refusal(res)[2]
    res = _pyarrow("--prereg", _demo_prereg(tmp_path, kind="leaderboard"),
                   "--bundle", demo_bundle, "--out", tmp_path / "c")  # fmt: skip
    assert _refusal(res)[0] == "bad_prereg" and "is not a kind" in _refusal(res)[2]
    assert not any((tmp_path / x).exists() for x in "abc")


@pytest.fixture
def registry_bundle() -> Path:
    if not (REGISTRY_BUNDLE / "registry.parquet").is_file():
        pytest.skip(f"bundle not present at ../shared/bundles/{REGISTRY_BUNDLE.name}")
    return REGISTRY_BUNDLE


def test_trials_prereg_refused_by_its_schema(impl_envs, registry_bundle, tmp_path) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / "skillsbench-registry.yaml").read_text())
    p = tmp_path / "prereg.yaml"
    p.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    ok = _pyarrow("trials", "--prereg", p, "--bundle", registry_bundle, "--out", tmp_path / "ok")
    assert ok.code == 0, ok.stderr  # control: the prereg as it is runs clean
    doc["disclosure"]["auditor"] = "   "  # blank: the schema's pattern "\S" only
    p.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    res = _pyarrow("trials", "--prereg", p, "--bundle", registry_bundle, "--out", tmp_path / "out")
    cls, file, detail = _refusal(res)
    assert (cls, file) == ("bad_prereg", str(p))
    assert detail.startswith("at disclosure.auditor: "), detail
    assert not (tmp_path / "out").exists()
