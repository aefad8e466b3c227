"""The referee's import contracts (pyproject.toml, [tool.importlinter]) hold, and break
when they should: a copy of the referee with one import injected is checked by the same
contracts, and the contract the injection violates is reported broken.

The injections: the seal reaching up to the lock from inside a function (an import
hidden in a function is still an import), a package reaching the commands, a kind
reaching up to the report, a new circle between two packages of one layer (feasible
and ranks) and one inside a package, a new package no layer places, and the controls
reaching the lock.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

LINT = Path(sys.executable).with_name("lint-imports")
LAYERS = "The referee in layers: commands over steps over kinds over seal"
CONTROLS = "The controls under the workflow's steps, over the report"
COMMANDS = "Only the command line imports the commands"
SEAL = "The seal under the kinds: no kind, no registry, no report, no lock"
ACYCLIC = "No import circle in the referee"


def _lint(root: Path) -> dict[str, str]:
    """Each contract's name -> KEPT or BROKEN, as lint-imports reports it for ``root``."""
    p = subprocess.run(
        [str(LINT), "--no-cache"],
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = {}
    for line in p.stdout.splitlines():
        for verdict in ("KEPT", "BROKEN"):
            name, sep, _ = line.partition(f" {verdict}")
            if sep:
                out[name.strip()] = verdict
    assert out, p.stdout + p.stderr
    return out


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the referee (audit) beside links to the other root packages, with the
    project's own contracts."""
    root = tmp_path_factory.mktemp("tree")
    shutil.copyfile(ROOT / "pyproject.toml", root / "pyproject.toml")
    for package in ("impl_pandas", "impl_pyarrow", "controls", "secondseat"):
        (root / package).symlink_to(ROOT / package)
    return root


@pytest.fixture
def referee(tree: Path) -> Path:
    shutil.rmtree(tree / "audit", ignore_errors=True)
    shutil.copytree(ROOT / "audit", tree / "audit", ignore=shutil.ignore_patterns("__pycache__"))
    return tree


def _append(path: Path, code: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("\n\n" + code)


def test_every_contract_holds_on_the_repository() -> None:
    verdicts = _lint(ROOT)
    assert {LAYERS, CONTROLS, COMMANDS, SEAL, ACYCLIC} <= set(verdicts)
    assert set(verdicts.values()) == {"KEPT"}, verdicts


def test_the_copy_is_checked_as_the_repository_is(referee: Path) -> None:
    # unchanged, the copy keeps every contract: a broken verdict below is the injection's
    assert set(_lint(referee).values()) == {"KEPT"}


def test_the_seal_importing_the_lock_in_a_function_breaks_the_layers(referee: Path) -> None:
    _append(
        referee / "audit" / "seal" / "ledger.py",
        "def _parent():\n    from audit.lock import amends\n\n    return amends\n",
    )
    verdicts = _lint(referee)
    assert verdicts[LAYERS] == "BROKEN"
    assert verdicts[SEAL] == "BROKEN"
    assert verdicts[ACYCLIC] == "BROKEN"  # the lock imports the seal: a circle


def test_the_seal_asking_the_kind_registry_breaks_the_seal_contract(referee: Path) -> None:
    # what verify read through the registry before it was handed annex_contract
    _append(
        referee / "audit" / "seal" / "verify.py",
        "def _kind(p):\n    from audit.kinds import arm_kind\n\n    return arm_kind.of_file(p)\n",
    )
    verdicts = _lint(referee)
    assert verdicts[SEAL] == "BROKEN"
    assert verdicts[LAYERS] == "BROKEN"


def test_a_kind_importing_the_commands_is_refused(referee: Path) -> None:
    _append(referee / "audit" / "cells" / "summary.py", "from audit.commands import census\n")
    verdicts = _lint(referee)
    assert verdicts[COMMANDS] == "BROKEN"


def test_a_new_circle_between_two_packages_breaks_the_acyclic_contract(referee: Path) -> None:
    # feasible and ranks share a layer and import neither each other today: the circle
    # contract sees the circle, the layers contract the two siblings that now import
    _append(referee / "audit" / "feasible" / "record.py", "from audit.ranks import record\n")
    _append(referee / "audit" / "ranks" / "record.py", "from audit.feasible import decimals\n")
    verdicts = _lint(referee)
    assert verdicts[ACYCLIC] == "BROKEN"
    assert verdicts[LAYERS] == "BROKEN"
    assert verdicts[SEAL] == verdicts[COMMANDS] == "KEPT"


def test_a_circle_through_a_function_level_import_breaks_both(referee: Path) -> None:
    # the shape of the circles this layering closed: a kind reaching the report's numbers
    # from inside a function while the report reads the kind
    _append(
        referee / "audit" / "cells" / "summary.py",
        "def _page():\n    from audit.report import render\n\n    return render\n",
    )
    verdicts = _lint(referee)
    assert verdicts[ACYCLIC] == "BROKEN"
    assert verdicts[LAYERS] == "BROKEN"


def test_a_package_no_layer_places_breaks_the_layers(referee: Path) -> None:
    (referee / "audit" / "stray").mkdir()
    (referee / "audit" / "stray" / "__init__.py").write_text("", encoding="utf-8")
    verdicts = _lint(referee)
    assert verdicts[LAYERS] == "BROKEN"  # exhaustive: every package of audit is placed


def test_the_controls_reaching_the_lock_break_their_layers(referee: Path) -> None:
    (referee / "controls").unlink()
    shutil.copytree(
        ROOT / "controls", referee / "controls", ignore=shutil.ignore_patterns("__pycache__")
    )
    try:
        _append(referee / "controls" / "summary.py", "from audit.lock import shared\n")
        verdicts = _lint(referee)
        assert verdicts[CONTROLS] == "BROKEN"
    finally:
        shutil.rmtree(referee / "controls")
        (referee / "controls").symlink_to(ROOT / "controls")


def test_a_circle_inside_one_package_breaks_the_acyclic_contract(referee: Path) -> None:
    # two modules of the lock that import each other
    _append(
        referee / "audit" / "lock" / "shared.py", "def _f():\n    from audit.lock import cells\n"
    )
    verdicts = _lint(referee)
    assert verdicts[ACYCLIC] == "BROKEN"
