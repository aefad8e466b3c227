"""Inputs the lock used to accept and a later job refused are now refused before any job.

Before these checks (audit/preflight.py), each of these ran the lock (lock,
stamps and ledger events written, the arm locked) and then failed in a later job
with exit 1: a leaderboard with a list-typed column a recipe reads (the contestants' and a
control's unsupported_type, naming a derived file), and a control whose target
row is not on the leaderboard (error[control] after both recomputes; the corrected
prereg was then refused as arm_locked). Now: one line, exit 2, and nothing under
results/<arm>/ (the workflow run for real, not -n).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag


def _refused(p, kind: str) -> str:
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0].startswith(f"error[{kind}]: "), lines
    return lines[0]


def test_a_list_column_is_refused_before_any_job(tmp_path: Path, demo_bundle: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    # the measured single_value column `model`, a list: a value a recipe reads (a list
    # declared structural or no_antecedent is accepted: tests/test_label_any_type.py)
    logo = pl.Series("model", [["a.png"]] * lb.height, dtype=pl.List(pl.String))
    lb.with_columns(logo).write_parquet(bundle / "leaderboard.parquet")
    p = run_dag(tmp_path, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}", f"bundle={bundle}")
    line = _refused(p, "unsupported_type")
    assert line.startswith(f"error[unsupported_type]: {bundle}/leaderboard.parquet: column 'model'")
    assert not (tmp_path / "results" / "demo").exists()


def test_a_control_on_a_missing_row_is_refused_before_any_job(
    tmp_path: Path, demo_bundle: Path
) -> None:
    prereg = tmp_path / "demo-m9.yaml"
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert "target: {row_id: demo/m2}" in text
    prereg.write_text(text.replace("target: {row_id: demo/m2}", "target: {row_id: demo/m9}", 1))
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={demo_bundle}"]
    line = _refused(run_dag(tmp_path, "--config", *config), "bad_prereg")
    assert line.startswith(
        f"error[bad_prereg]: {prereg}: control 'flip_m2_beta' targets row 'demo/m9'"
    )
    assert not (tmp_path / "results" / "demo").exists()


def _with_duration_cost(demo_bundle: Path, folder: Path) -> Path:
    """The demo bundle with the instance column cost, the source of the means alpha_cost
    and beta_cost, written as an Arrow duration (microseconds): in the file a bare INT64,
    which a reader of the parquet schema alone would average as numbers."""
    bundle = folder / "bundle"
    shutil.copytree(demo_bundle, bundle)
    inst = pl.read_parquet(bundle / "instances.parquet")
    spans = (inst["cost"] * 1_000_000).cast(pl.Int64).cast(pl.Duration("us"))
    inst.with_columns(spans.alias("cost")).write_parquet(bundle / "instances.parquet")
    return bundle


def test_a_duration_mean_source_is_bad_type_at_preflight(tmp_path: Path, demo_bundle) -> None:
    import yaml

    from audit.cells import bundle_checks
    from audit.cells.record import parse
    from audit.errors import AuditError

    bundle = _with_duration_cost(demo_bundle, tmp_path)
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    try:
        bundle_checks.check_column_types(parse(doc, "prereg/demo.yaml"), str(bundle))
    except AuditError as e:
        assert (e.kind, e.path) == ("bad_type", f"{bundle}/instances.parquet"), e
        assert "column 'cost', the source of the mean 'alpha_cost', is a duration" in e.detail
    else:
        raise AssertionError("a duration mean source was let through to the lock")


def test_a_duration_mean_source_is_refused_before_any_job(tmp_path: Path, demo_bundle) -> None:
    bundle = _with_duration_cost(demo_bundle, tmp_path)
    p = run_dag(tmp_path, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}", f"bundle={bundle}")
    line = _refused(p, "bad_type")
    assert line.startswith(f"error[bad_type]: {bundle}/instances.parquet: column 'cost'")
    assert not (tmp_path / "results" / "demo").exists()
