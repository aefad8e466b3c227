"""The single-process reference of benchmarks/dag.py computes what the DAG's jobs compute.

benchmarks/reference.py runs one contestant and the controls in one process. Its
figure is only a reference if its outputs are the DAG's: here the demo bundle goes
through it and through the commands the DAG's jobs run, each its own process
(workflow/rules/recompute.smk and controls.smk: the contestant's recompute, then
``controls predict-perturb``, the contestant over every perturbed
bundle with ``--no-draws``, ``controls check``), and every file both write is
compared byte for byte: the census, the null and the other run files, each
control's prediction, selection, perturbed bundle, rerun and check. No timing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import IMPL_PARAMS, ROOT, impl_python, run

DEMO = ROOT / "prereg" / "demo.yaml"
CONTROLS = sorted(yaml.safe_load(DEMO.read_text(encoding="utf-8"))["controls"])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _ok(cmd: list[str]) -> None:
    res = run(cmd)
    assert res.code == 0, res.stderr


@pytest.fixture(scope="module")
def dag_controls(demo_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The controls' predictions and perturbed bundles, as controls_predict_perturb
    writes them."""
    out = tmp_path_factory.mktemp("dag-controls")
    names = [a for c in CONTROLS for a in ("--control", c)]
    src = ["--prereg", str(DEMO), "--kind", "leaderboard", *names, "--bundle", str(demo_bundle)]
    _ok([sys.executable, "-m", "controls", "predict-perturb", *src, "--out", str(out / "controls"),
         "--events", str(out / "events")])  # fmt: skip
    return out / "controls"


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_reference_writes_what_the_dag_jobs_write(
    impl: str, impl_envs, demo_bundle: Path, dag_controls: Path, tmp_path: Path
) -> None:
    ref = tmp_path / "reference"
    _ok([sys.executable, str(ROOT / "benchmarks" / "reference.py"), "--impl", impl,
         "--prereg", str(DEMO), "--bundle", str(demo_bundle), "--out", str(ref)])  # fmt: skip

    contestant = [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(DEMO)]
    _ok([*contestant, "--bundle", str(demo_bundle), "--out", str(tmp_path / "run1")])
    base = _files(tmp_path / "run1")
    assert {"census.csv", "nulls.csv", "cells.csv"} <= set(base)
    assert _files(ref / "run") == base

    # controls_recompute: into <controls>/<c>/<impl>, where controls_check reads them
    pairs = [a for c in CONTROLS for a in ("--bundle", str(dag_controls / c / "bundle"),
                                           "--out", str(dag_controls / c / impl))]  # fmt: skip
    _ok([*contestant, *pairs, "--no-draws"])
    names = [a for c in CONTROLS for a in ("--control", c)]
    _ok([sys.executable, "-m", "controls", "check", "--prereg", str(DEMO), "--kind", "leaderboard",
         *names,
         "--controls", str(dag_controls), "--before", impl, str(tmp_path / "run1"),
         "--out-csv", str(tmp_path / "controls.csv"),
         "--out-md", str(tmp_path / "controls.md")])  # fmt: skip

    assert CONTROLS, "the demo declares controls"
    for c in CONTROLS:
        mine, dags = ref / "controls" / c, dag_controls / c
        for name in ("prediction.csv", "selection.json"):
            assert (mine / name).read_bytes() == (dags / name).read_bytes(), (c, name)
        assert _files(mine / "bundle") == _files(dags / "bundle"), c
        assert _files(mine / impl) == _files(dags / impl), c
        assert _files(mine / impl), c
        for name in ("check.csv", "verdict.json"):
            assert (mine / name).read_bytes() == (dags / name).read_bytes(), (c, name)
    assert (ref / "controls.csv").read_bytes() == (tmp_path / "controls.csv").read_bytes()
