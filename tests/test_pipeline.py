"""The whole DAG, end to end, as a user runs it: the demo bundle and the real one."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit import ledger
from audit.files import file_blake3
from tests.conftest import ROOT, read_csv_rows

SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the repository's Snakefile in ``workdir`` (results land there, not in the repo)."""
    (workdir / "config").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "config" / "config.yaml", workdir / "config" / "config.yaml")
    return subprocess.run(
        [
            SNAKEMAKE,
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(workdir),
            "--cores",
            "2",
            *args,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
def test_demo_dag_end_to_end(impl_envs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prereg = ROOT / "prereg" / "demo.yaml"
    p = snakemake(tmp_path, "--config", f"prereg={prereg}")
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "demo"
    census = json.loads((res / "census.json").read_text())
    assert census["cells"] == 56
    assert census["classes"] == {
        "structural": 12,
        "no_antecedent": 16,
        "reproduced": 23,
        "divergent": 3,
        "no_data": 2,
    }
    assert "56 cells = 4 rows x 14 columns" in p.stdout  # printed at the end of the run
    agreement = json.loads((res / "agreement.json").read_text())
    assert agreement["disagreements"] == 0 and agreement["all_byte_identical"]
    for impl in ("pandas", "pyarrow"):
        same = json.loads((res / "recompute" / impl / "runs-identical.json").read_text())
        assert same["runs"] == 2 and same["identical"]
    events = [json.loads(x)["event"] for x in (res / "ledger.jsonl").read_text().splitlines()]
    assert events[:3] == ["prereg_locked", "bundle_hashed", "bundle_hashed"]
    assert events.count("output_recorded") == 16
    monkeypatch.chdir(tmp_path)  # ledger subjects are relative to the run's folder
    assert ledger.verify(Path("results/demo/ledger.jsonl")) == []


@pytest.mark.slow
def test_edited_prereg_stops_the_dag_at_the_lock(impl_envs, tmp_path: Path) -> None:
    edited = tmp_path / "demo.yaml"
    edited.write_text((ROOT / "prereg" / "demo.yaml").read_text().replace("seed: 7", "seed: 8"))
    p = snakemake(tmp_path, "--config", f"prereg={edited}")
    assert p.returncode != 0
    out = p.stdout + p.stderr
    expected = file_blake3(ROOT / "prereg" / "demo.yaml")
    assert f"blake3 is {file_blake3(edited)} but the config expects {expected}" in out
    assert not (tmp_path / "results" / "demo" / "recompute").exists()
    assert not (tmp_path / "results" / "demo" / "lock").exists()


@pytest.mark.slow
@pytest.mark.realbundle
def test_real_bundle_census(impl_envs, real_bundle: Path, tmp_path: Path) -> None:
    prereg = ROOT / "prereg" / "openhands-index.yaml"
    p = snakemake(
        tmp_path,
        "--configfile",
        str(ROOT / "config" / "openhands-index.yaml"),
        "--config",
        f"prereg={prereg}",
        f"bundle={real_bundle}",
    )
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "openhands-index"
    census = json.loads((res / "census.json").read_text())
    classes = census["classes"]
    # 34 rows x 38 columns; 21 no-antecedent, 4 structural, 13 measured columns
    assert census["cells"] == 1292
    assert classes["no_antecedent"] == 714 and classes["structural"] == 136
    assert census["with_antecedent"] == 442
    assert classes["reproduced"] + classes["divergent"] == 442 and classes["no_data"] == 0
    agreement = json.loads((res / "agreement.json").read_text())
    assert agreement["disagreements"] == 0 and agreement["census_cells_compared"] == 1292
    runs = list((res / "recompute").glob("*/run*/cells.csv"))
    assert len(runs) == 4
    cells = read_csv_rows(res / "census_cells.csv")
    reproduced = [c for c in cells if c["class"] == "reproduced"]
    assert all(c["best_tier"] in {"0", "1", "2"} and c["policies"] for c in reproduced)


def test_lint_reports_only_the_environment_advice() -> None:
    p = subprocess.run([SNAKEMAKE, "--lint"], check=False, cwd=ROOT, capture_output=True, text=True)
    bullets = [
        ln.strip()
        for ln in p.stdout.splitlines() + p.stderr.splitlines()
        if ln.strip().startswith("* ")
    ]
    assert bullets, "lint printed nothing: did it run?"
    assert set(bullets) == {"* Specify a conda environment or container for each rule.:"}
