"""impl_pandas has one spine for its two commands: one prereg parser (impl_pandas/prereg/),
which checks a prereg against its kind's JSON Schema before its own logic, one errors
module, one tiers module and one set of table checks, used by the leaderboard part and
the trials part alike."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, impl_python

PKG = ROOT / "impl_pandas"
SHARED = (ROOT / ".." / "shared" / "bundles").resolve()
TRIALS_BUNDLE = SHARED / "skillsbench-registry"


def _modules() -> dict[str, ast.Module]:
    return {
        p.relative_to(PKG).as_posix(): ast.parse(p.read_text(encoding="utf-8"))
        for p in sorted(PKG.rglob("*.py"))
    }


def _imported(tree: ast.Module, module: str) -> set[str]:
    """Absolute names of the impl_pandas modules this file imports from."""
    base = ["impl_pandas", *module.removesuffix(".py").split("/")][:-1]
    if module.endswith("__init__.py"):
        base = ["impl_pandas", *module.split("/")[:-1]]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts = base[: len(base) - node.level + 1] if node.level else []
            name = ".".join([*parts, *(node.module.split(".") if node.module else [])])
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_one_prereg_parser_for_both_parts() -> None:
    mods = _modules()
    parsers = sorted(m for m in mods if Path(m).stem == "prereg" or m.startswith("prereg/"))
    # the package and nothing else: no impl_pandas/prereg.py, no impl_pandas/trials/prereg.py
    assert parsers == [
        "prereg/__init__.py",
        "prereg/common.py",
        "prereg/leaderboard.py",
        "prereg/schema.py",
        "prereg/trials.py",
    ]
    lead = _imported(mods["pipeline.py"], "pipeline.py")
    trials = _imported(mods["trials/pipeline.py"], "trials/pipeline.py")
    assert "impl_pandas.prereg.load_document" in lead
    assert "impl_pandas.prereg.load_document" in trials
    # only the parser reads YAML (yaml_reader.py, for it) or knows the schema library
    for name, tree in mods.items():
        names = _imported(tree, name)
        if not name.startswith("prereg/") and name != "yaml_reader.py":
            assert not {"yaml", "jsonschema"} & names, name


def test_one_definition_of_each_shared_piece() -> None:
    """Each class of the spine is defined once: the checker, the tolerance, the error
    classes, the tiers' names, the table checks."""
    defined: dict[str, list[str]] = {}
    for name, tree in _modules().items():
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
                defined.setdefault(node.name, []).append(name)
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        defined.setdefault(t.id, []).append(name)
    for piece in ("Tolerance", "InputError", "missing_columns", "duplicate_columns"):
        assert len(defined[piece]) == 1, (piece, defined[piece])
    for piece in ("NO_DATA", "DIVERGENT", "is_integer_tier", "NO_POLICY"):
        assert len(defined[piece]) == 1, (piece, defined[piece])
    assert not [n for n in defined if n.endswith("Checker") and n != "Checker"]
    for cls in ("BAD_PREREG", "BAD_VALUE", "BAD_KEY", "UNKNOWN_ROW"):
        assert defined[cls] == ["errors.py"], (cls, defined[cls])


def _contestant(
    *args: str, cwd: Path = ROOT, pythonpath: Path = ROOT
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(impl_python("pandas")), "-m", "impl_pandas", *args],
        cwd=cwd,
        env={"PYTHONPATH": str(pythonpath), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _refused(p: subprocess.CompletedProcess, prereg: Path, out: Path) -> str:
    """The one stderr line of a bad_prereg refusal; nothing written."""
    assert p.returncode == 2, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith(f"error[bad_prereg]: {prereg}: "), lines[0]
    assert not out.exists()
    return lines[0]


def _demo_with(tmp_path: Path, old: str, new: str) -> Path:
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert text.count(old) == 1
    path = tmp_path / "prereg.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


# Each breaks only a rule the schema states (workflow/schemas/prereg.schema.yaml); the
# contestant's own checks before the schema was read let every one of them through (the
# name's pattern, the disclosure's non-blank auditor, an unknown top-level key).
LEADERBOARD_SCHEMA_ONLY = {
    "name pattern": ("name: demo\n", "name: Demo Method\n", "name:"),
    "blank auditor": (
        "auditor: the secondseat maintainers",
        'auditor: "   "',
        "disclosure.auditor:",
    ),
    "unknown key": ("name: demo\n", "name: demo\nnotes: written later\n", "unknown key 'notes'"),
}


@pytest.mark.parametrize("case", sorted(LEADERBOARD_SCHEMA_ONLY))
def test_leaderboard_prereg_refused_by_the_schema(
    impl_envs, demo_bundle: Path, tmp_path: Path, case: str
) -> None:
    old, new, names = LEADERBOARD_SCHEMA_ONLY[case]
    prereg = _demo_with(tmp_path, old, new)
    out = tmp_path / "out"
    p = _contestant("--prereg", str(prereg), "--bundle", str(demo_bundle), "--out", str(out))
    line = _refused(p, prereg, out)
    assert "schema prereg.schema.yaml: " in line and names in line, line


def test_demo_prereg_still_runs(impl_envs, demo_bundle: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    prereg = ROOT / "prereg" / "demo.yaml"
    p = _contestant("--prereg", str(prereg), "--bundle", str(demo_bundle), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert (out / "cells.csv").is_file()


def test_trials_prereg_refused_by_the_schema(impl_envs, tmp_path: Path) -> None:
    if not (TRIALS_BUNDLE / "registry.parquet").is_file():
        pytest.skip("bundle not present at ../shared/bundles/skillsbench-registry")
    text = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
    # a blank auditor: the trials schema's pattern \S; the old trials checks took any string
    old = "auditor: the secondseat maintainers"
    assert text.count(old) == 1
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(old, 'auditor: " "'), encoding="utf-8")
    out = tmp_path / "out"
    p = _contestant(
        "trials", "--prereg", str(prereg), "--bundle", str(TRIALS_BUNDLE), "--out", str(out)
    )
    line = _refused(p, prereg, out)
    assert "schema trials-prereg.schema.yaml: disclosure.auditor:" in line, line


def test_each_command_refuses_the_other_kind(impl_envs, demo_bundle: Path, tmp_path: Path) -> None:
    trials = ROOT / "prereg" / "skillsbench-registry.yaml"
    out = tmp_path / "out"
    p = _contestant("--prereg", str(trials), "--bundle", str(demo_bundle), "--out", str(out))
    assert "a trials prereg: python -m impl_pandas trials recomputes it" in _refused(p, trials, out)
    demo = ROOT / "prereg" / "demo.yaml"
    p = _contestant(
        "trials", "--prereg", str(demo), "--bundle", str(demo_bundle), "--out", str(out)
    )
    assert "a leaderboard prereg: python -m impl_pandas recomputes it" in _refused(p, demo, out)


def test_a_kind_that_is_no_kind(impl_envs, demo_bundle: Path, tmp_path: Path) -> None:
    prereg = _demo_with(tmp_path, "name: demo\n", "name: demo\nkind: leaderboard\n")
    out = tmp_path / "out"
    p = _contestant("--prereg", str(prereg), "--bundle", str(demo_bundle), "--out", str(out))
    assert "kind 'leaderboard' is not a kind" in _refused(p, prereg, out)


def test_schemas_found_in_a_clone_shaped_folder(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """The folder `secondseat audit` lays out for an installed run (secondseat/project.py)
    holds the packages beside workflow/: the contestant finds its schemas there, not in
    the clone it was copied from."""
    top = tmp_path / "project"
    shutil.copytree(PKG, top / "impl_pandas", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "workflow" / "schemas", top / "workflow" / "schemas")
    prereg = _demo_with(tmp_path, "name: demo\n", "name: Demo Method\n")
    out = tmp_path / "out"
    run = ["--prereg", str(prereg), "--bundle", str(demo_bundle), "--out", str(out)]
    p = _contestant(*run, cwd=tmp_path, pythonpath=top)
    assert "schema prereg.schema.yaml: name:" in _refused(p, prereg, out)
    # without the schemas beside it the contestant says so, in one line, and writes nothing
    shutil.rmtree(top / "workflow")
    p = _contestant(*run, cwd=tmp_path, pythonpath=top)
    assert p.returncode == 2 and len(p.stderr.splitlines()) == 1, p.stderr
    assert p.stderr.startswith("error[missing_file]: ") and "prereg.schema.yaml" in p.stderr
    assert not out.exists()
