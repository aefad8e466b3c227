"""The whole DAG, end to end, as a user runs it: the demo bundle and the real one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit.files import file_blake3
from audit.seal import ledger
from tests.conftest import ROOT, SNAKEMAKE, annex_head, read_csv_rows, run_dag


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    return run_dag(workdir, *args)


@pytest.fixture(scope="module")
def demo_run(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    work = tmp_path_factory.mktemp("demo-run")
    p = snakemake(work, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert p.returncode == 0, p.stderr[-3000:]
    return work, p.stdout


def _ledger(work: Path) -> list[dict]:
    lines = (work / "results" / "demo" / "ledger.jsonl").read_text().splitlines()
    return [json.loads(x) for x in lines]


@pytest.mark.slow
def test_demo_dag_end_to_end(demo_run, monkeypatch: pytest.MonkeyPatch) -> None:
    work, stdout = demo_run
    res = work / "results" / "demo"
    census = json.loads((res / "census.json").read_text())
    assert census["cells"] == 56
    assert census["classes"] == {
        "structural": 12,
        "no_antecedent": 16,
        "reproduced": 23,
        "divergent": 3,
        "no_data": 2,
    }
    # printed at the end of the run: the findings first (3 divergent cells, counted above)
    assert "secondseat, arm demo: findings" in stdout
    assert "3 published cell(s) diverge under every declared policy" in stdout
    agreement = json.loads((res / "agreement.json").read_text())
    assert agreement["disagreements"] == 0 and agreement["all_byte_identical"]
    for impl in ("pandas", "pyarrow"):
        same = json.loads((res / "recompute" / impl / "runs-identical.json").read_text())
        assert same["runs"] == 2 and same["identical"]
    events = [e["event"] for e in _ledger(work)]
    assert events[:3] == ["prereg_locked", "bundle_hashed", "bundle_hashed"]
    monkeypatch.chdir(work)  # ledger subjects are relative to the run's folder
    assert ledger.verify(Path("results/demo/ledger.jsonl")) == []


@pytest.mark.slow
def test_every_demo_control_passes_and_was_stamped_first(demo_run) -> None:
    work, _ = demo_run
    summary = read_csv_rows(work / "results" / "demo" / "controls.csv")
    assert {r["control"]: r["verdict"] for r in summary} == {
        "flip_m2_beta": "pass",
        "nullify_m1_alpha_score": "pass",
        "nullify_m4_alpha_cost": "pass",
        "reorder_invariant": "pass",
        "shift_seeded_alpha_cost": "pass",
        "swap_m1_m2": "pass",
    }
    # every leaderboard control kind the prereg schema knows is exercised
    assert {r["kind"] for r in summary} == {"flip", "shift", "nullify", "swap", "reorder"}
    # the null paths, by hand (tests/test_controls.py): under A the score falls by
    # 100 * 2/8 = 25 to 12.5, under B to 1/5 = 20.0, measured by both contestants
    check = {
        (r["column"], r["policy"]): r
        for r in read_csv_rows(
            work / "results" / "demo" / "controls" / "nullify_m1_alpha_score" / "check.csv"
        )
    }
    for impl in ("pandas", "pyarrow"):
        assert check[("alpha_score", "A")][f"{impl}_after"] == "12.500000"
        assert check[("alpha_score", "B")][f"{impl}_after"] == "20.000000"
    entries = _ledger(work)
    for control in ("flip_m2_beta", "shift_seeded_alpha_cost", "swap_m1_m2", "reorder_invariant"):
        stamped = [
            e["seq"]
            for e in entries
            if e["event"] == "prediction_stamped"
            and e["subject"].endswith(f"{control}/prediction.csv")
        ]
        built = [
            e["seq"]
            for e in entries
            if e["event"] == "bundle_perturbed"  # the perturbation's own event (docs/seal.md)
            and e["subject"].endswith(f"{control}/bundle/instances.parquet")
        ]
        assert len(stamped) == 1 and len(built) == 1 and stamped[0] < built[0], control


@pytest.mark.slow
def test_demo_disclosure_is_first_and_its_row_is_marked(demo_run) -> None:
    work, _ = demo_run
    res = work / "results" / "demo"
    relation = "made up for the demo: it supposes the auditor's own agent is this row"
    said = [
        "**Disclosure, declared in the preregistration and locked before the run:**",
        "",
        "- Audit run by: the secondseat maintainers",
        f"- Relations to rows of this leaderboard: demo/m2: {relation}",
        "- Publication: the outcome is published whatever it is, with the annex and its head",
    ]
    # first after the title, before any hash or result
    assert (res / "annex" / "certificate.md").read_text().splitlines()[2:7] == said
    assert (res / "report" / "report.md").read_text().splitlines()[2:7] == said
    html = (res / "report" / "report.html").read_text()
    assert html.index('<section id="disclosure">') < html.index("56 cells")
    rows = {r["row_id"]: r["disclosed"] for r in read_csv_rows(res / "census_rows.csv")}
    assert rows == {"demo/m1": "", "demo/m2": relation, "demo/m3": "", "demo/m4": ""}
    assert f"Disclosed rows: demo/m2 ({relation})" in (res / "census.txt").read_text()
    # the seed (7) chose demo/m2 for the shift: the prereg could not know it, so it is named
    sel = json.loads((res / "controls" / "shift_seeded_alpha_cost" / "selection.json").read_text())
    assert sel["row_id"] == "demo/m2"
    controls = {r["control"]: r["disclosed"] for r in read_csv_rows(res / "controls.csv")}
    assert controls["shift_seeded_alpha_cost"] == f"demo/m2: {relation}"
    assert controls["nullify_m1_alpha_score"] == ""
    md = (res / "controls.md").read_text()
    assert f"(the seed chose the target): shift_seeded_alpha_cost on demo/m2: {relation}." in md
    cert = (res / "annex" / "certificate.md").read_text()
    assert f"on a disclosed row, demo/m2: {relation} (the seed chose this target)" in cert


@pytest.mark.slow
def test_a_prediction_edited_after_its_stamp_stops_the_run(impl_envs, tmp_path: Path) -> None:
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    # Locked and stamped, not yet sealed: the run stops at the stamps.
    stamp = "results/demo/controls/flip_m2_beta/stamp.json"
    assert snakemake(tmp_path, stamp, "--config", prereg).returncode == 0
    assert not (tmp_path / "results" / "demo" / "annex").exists()
    pred = tmp_path / "results" / "demo" / "controls" / "flip_m2_beta" / "prediction.csv"
    pred.write_text(pred.read_text().replace("-20.000000", "-19.000000"))
    p = snakemake(tmp_path, "--config", prereg)
    assert p.returncode != 0
    # The prediction and its perturbed bundle are one job (controls_predict_perturb), which
    # finished before the edit; the check (its input, the prediction, is newer) compares
    # every prediction with its stamp before judging any control, and writes nothing.
    out = p.stdout + p.stderr
    assert f"{pred.relative_to(tmp_path)}: changed after it was stamped" in out
    res = tmp_path / "results" / "demo"
    assert not (res / "controls" / "flip_m2_beta" / "check.csv").exists()
    assert not (res / "controls" / "flip_m2_beta" / "verdict.json").exists()
    assert not (res / "controls.csv").exists()
    assert not (res / "annex").exists()


@pytest.mark.slow
def test_a_prediction_edited_in_a_sealed_arm_is_refused_before_any_job(
    impl_envs, tmp_path: Path
) -> None:
    prereg = f"prereg={ROOT / 'prereg' / 'demo.yaml'}"
    assert snakemake(tmp_path, "--config", prereg).returncode == 0
    res = tmp_path / "results" / "demo"
    pred = res / "controls" / "flip_m2_beta" / "prediction.csv"
    pred.write_text(pred.read_text().replace("-20.000000", "-19.000000"))
    before = {f: f.read_bytes() for f in res.rglob("*") if f.is_file() and "logs" not in f.parts}
    p = snakemake(tmp_path, "--config", prereg)
    assert p.returncode == 2
    out = p.stdout + p.stderr
    assert "error[arm_sealed]" in out and "is sealed (annex head" in out
    # nothing under the arm was written by the refused run
    after = {f: f.read_bytes() for f in res.rglob("*") if f.is_file() and "logs" not in f.parts}
    assert after == before


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


def _check_cost_nullify(res: Path, bundle: Path) -> None:
    """2 of claude-opus-4-7's 64 non-null Frontend costs (of 68) made null: worked here
    with exact fractions from the bundle and the stamped selection, C = (S - s) / 62,
    D = (S - s) / 68 (S the sum of the 64 costs, s that of the two chosen)."""
    from decimal import Decimal
    from fractions import Fraction

    import polars as pl

    sel = json.loads(
        (res / "controls" / "nullify_opus47_frontend_cost" / "selection.json").read_text()
    )
    inst = pl.read_parquet(bundle / "instances.parquet").filter(
        (pl.col("id") == "OpenHands/claude-opus-4-7") & (pl.col("category") == "Frontend")
    )
    costs = {(r["id"], r["benchmark"], r["instance_id"]): r["cost"] for r in inst.to_dicts()}
    present = [Fraction(c) for c in costs.values() if c is not None]
    chosen = [Fraction(costs[tuple(k)]) for k in sel["instances"]]
    assert (len(costs), len(present), len(chosen)) == (68, 64, 2)
    rest = sum(present) - sum(chosen)

    def six(v: Fraction) -> str:  # exact, rounded half to even to 6 decimals
        return f"{Decimal(round(v * 10**6)).scaleb(-6):.6f}"

    check = {
        (r["column"], r["policy"]): r
        for r in read_csv_rows(res / "controls" / "nullify_opus47_frontend_cost" / "check.csv")
    }
    for impl in ("pandas", "pyarrow"):
        assert check[("frontend_cost", "C")][f"{impl}_after"] == six(rest / 62)
        assert check[("frontend_cost", "D")][f"{impl}_after"] == six(rest / 68)


@pytest.mark.slow
@pytest.mark.realbundle
def test_real_bundle_census(real_run: Path, real_bundle: Path, tmp_path: Path) -> None:
    res = real_run  # the arm run once for every test that reads it (tests/conftest.py)
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
    # a permutation null beside each of the 13 measured columns
    columns = {r["column"]: r for r in read_csv_rows(res / "census_columns.csv")}
    measured = [c for c, r in columns.items() if r["kind"] == "measured"]
    assert len(measured) == 13 and all(columns[c]["null_mean"] != "" for c in measured)
    # agreement beyond chance: every cost column and their average is flagged (scaled
    # costs land on four-decimal published means, e.g. testing_cost DeepSeek-V4-Pro
    # 0.0354 exactly; cell chances near 2e-8, two to seven exact cells per column);
    # no score column is (issue_resolution_score: 34 of 34 rates over 500, certain)
    flagged = sorted(c for c in measured if columns[c]["constructed"] == "yes")
    assert flagged == sorted(
        [
            "average_cost",
            *(
                f"{g}_cost"
                for g in (
                    "issue_resolution",
                    "frontend",
                    "greenfield",
                    "testing",
                    "information_gathering",
                )
            ),
        ]
    )
    assert (
        columns["issue_resolution_score"]["chance_certain"],
        columns["testing_cost"]["chance_exact"],
    ) == ("34", "6")
    assert census["constructed"] == [c for c in measured if c in flagged]
    certificate = (res / "annex" / "certificate.md").read_text()
    certified = certificate.split("## Columns that reproduce")[1].split("\n## ")[0]
    assert not any(f"| {c} |" in certified for c in flagged)
    # controls: every one passes; the two declared by hand measure what the issue predicts
    # (3 of 500 resolved flipped: -100 * 3/500 = -0.6; +10.00 on one of 64 non-null
    # frontend costs: +10/64 = 0.15625, and a fifth of that on the 5-category average).
    assert {r["verdict"] for r in read_csv_rows(res / "controls.csv")} == {"pass"}
    flip = {
        (r["column"], r["policy"]): r
        for r in read_csv_rows(res / "controls" / "flip_glm51_issue_resolution" / "check.csv")
    }
    shift = {
        (r["column"], r["policy"]): r
        for r in read_csv_rows(res / "controls" / "shift_opus47_frontend_cost" / "check.csv")
    }
    for impl in ("pandas", "pyarrow"):
        assert flip[("issue_resolution_score", "A")][f"{impl}_change"] == "-0.600000"
        assert shift[("frontend_cost", "C")][f"{impl}_change"] == "+0.156250"
        assert shift[("average_cost", "C")][f"{impl}_change"] == "+0.031250"
    # the null paths: 5 of GLM-5.1's 375 resolved (of 500, none null) made null. A keeps
    # them as failures: 370/500 = 74.0, one point less; B drops them: 100 * 370/495 =
    # 74.747475, 0.252525 less; the 5-category average moves by a fifth of each.
    nullify = {
        (r["column"], r["policy"]): r
        for r in read_csv_rows(res / "controls" / "nullify_glm51_issue_resolution" / "check.csv")
    }
    for impl in ("pandas", "pyarrow"):
        assert nullify[("issue_resolution_score", "A")][f"{impl}_change"] == "-1.000000"
        assert nullify[("issue_resolution_score", "B")][f"{impl}_change"] == "-0.252525"
        assert nullify[("average_score", "A")][f"{impl}_change"] == "-0.200000"
        assert nullify[("average_score", "B")][f"{impl}_change"] == "-0.050505"
    _check_cost_nullify(res, real_bundle)
    swap = json.loads((res / "controls" / "swap_seeded" / "verdict.json").read_text())
    assert any(c["after"] == "divergent" for c in swap["class_changes"]["pandas"])
    reorder = json.loads((res / "controls" / "reorder_invariant" / "verdict.json").read_text())
    assert reorder["identical_to_unperturbed"] == {"pandas": True, "pyarrow": True}
    # a second seat, in its own working directory, reruns from the annex: same bytes
    second = tmp_path / "second-seat"
    q = snakemake(
        second,
        "--configfile",
        str(ROOT / "config" / "openhands-index.yaml"),
        "--config",
        "seat=second",
        f"annex={res / 'annex'}",
        f"head={annex_head(res / 'annex')}",
        f"bundle={real_bundle}",
    )
    assert q.returncode == 0, q.stderr[-3000:]
    cmp = subprocess.run(
        [
            sys.executable,
            "-m",
            "audit",
            "compare-annex",
            str(res / "annex"),
            str(second / "results" / "openhands-index" / "annex"),
        ],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr
    assert "verdict: every non-volatile file identical" in cmp.stdout


def test_lint_reports_only_the_environment_advice() -> None:
    p = subprocess.run([SNAKEMAKE, "--lint"], check=False, cwd=ROOT, capture_output=True, text=True)
    bullets = [
        ln.strip()
        for ln in p.stdout.splitlines() + p.stderr.splitlines()
        if ln.strip().startswith("* ")
    ]
    assert bullets, "lint printed nothing: did it run?"
    assert set(bullets) == {"* Specify a conda environment or container for each rule.:"}


@pytest.mark.slow
def test_a_bad_bundle_stops_the_dag_with_one_line_and_no_outputs(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    import polars as pl

    bundle = tmp_path / "bad-bundle"
    bundle.mkdir()
    shutil.copyfile(demo_bundle / "instances.parquet", bundle / "instances.parquet")
    lb = pl.read_parquet(demo_bundle / "leaderboard.parquet").drop("beta_cost")
    lb.write_parquet(bundle / "leaderboard.parquet")
    p = snakemake(
        tmp_path, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}", f"bundle={bundle}"
    )
    assert p.returncode != 0
    line = f"error[missing_column]: {bundle / 'leaderboard.parquet'}: "
    assert line in p.stdout + p.stderr
    assert "Traceback" not in p.stdout + p.stderr
    left = list((tmp_path / "results" / "demo" / "recompute").rglob("*.csv"))
    assert left == [], f"partial outputs left behind: {left}"


@pytest.mark.slow
def test_a_prereg_without_controls_runs_to_a_verified_annex(impl_envs, tmp_path: Path) -> None:
    # The demo method with `controls: {}`: the census is the demo's, the controls
    # table is empty, and the report, certificate and annex still come out whole.
    text = (ROOT / "prereg" / "demo.yaml").read_text()
    prereg = tmp_path / "no-controls.yaml"
    prereg.write_text(text[: text.index("\ncontrols:")] + "\ncontrols: {}\n")
    p = snakemake(tmp_path, "--config", f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}")
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "demo"
    census = json.loads((res / "census.json").read_text())
    assert census["classes"]["reproduced"] == 23 and census["classes"]["divergent"] == 3
    assert not (res / "controls").exists()
    assert read_csv_rows(res / "controls.csv") == []
    assert (res / "report" / "controls.svg").is_file()
    v = subprocess.run(
        [sys.executable, "-m", "audit", "verify", str(res / "annex")],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert v.returncode == 0, v.stdout + v.stderr
