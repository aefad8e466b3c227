"""Columns the prereg names and the tables' columns, judged before the lock.

A column the prereg names that a table lacks (missing_column), a leaderboard column
the prereg does not classify (undeclared_column) and a name a table gives twice
(duplicate_column) are refused by both contestants (docs/contract.md). The first two
passed the lock (polars reads such a table), so the arm was locked and only then
both contestants refused it (Snakemake's exit 1: tests/test_pipeline.py, a dropped
column); the corrected bundle was then refused as arm_locked. Now the workflow
refuses each as it is read: the contestants' class (expected: each contestant run on
the same bundle, an independent reading), exit 2, nothing under results/<arm>/.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from audit.files import file_blake3
from tests.conftest import IMPLS, ROOT, run_dag, run_impl

PREREG = ROOT / "prereg" / "demo.yaml"


def _dropped(bundle: Path) -> tuple[str, str]:
    """The measured column beta_cost dropped from the leaderboard."""
    lb = pl.read_parquet(bundle / "leaderboard.parquet").drop("beta_cost")
    lb.write_parquet(bundle / "leaderboard.parquet")
    return "missing_column", "leaderboard.parquet"


def _unclassified(bundle: Path) -> tuple[str, str]:
    """A leaderboard column no class of the prereg names."""
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    lb.with_columns(pl.lit("x").alias("surprise")).write_parquet(bundle / "leaderboard.parquet")
    return "undeclared_column", "leaderboard.parquet"


def _dropped_source(bundle: Path) -> tuple[str, str]:
    """The instance column cost, the source of two means, dropped."""
    inst = pl.read_parquet(bundle / "instances.parquet").drop("cost")
    inst.write_parquet(bundle / "instances.parquet")
    return "missing_column", "instances.parquet"


def _twice(bundle: Path) -> tuple[str, str]:
    """The instance table gives the name cost to two columns: a copy written as cos#,
    renamed in the footer's bytes (as tests/conformance/kit.py does; no dataframe
    library writes one)."""
    file = bundle / "instances.parquet"
    inst = pl.read_parquet(file)
    inst.with_columns(pl.col("cost").alias("cos#")).write_parquet(file, statistics=False)
    data = file.read_bytes()
    assert data.count(b"cos#") >= 1
    file.write_bytes(data.replace(b"cos#", b"cost"))
    return "duplicate_column", "instances.parquet"


CASES = {
    "leaderboard column missing": _dropped,
    "leaderboard column unclassified": _unclassified,
    "instance source missing": _dropped_source,
    "instance column twice": _twice,
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_column_problem_is_refused_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    kind, file = CASES[case](bundle)
    head = f"error[{kind}]: {bundle}/{file}: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, PREREG, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    p = run_dag(tmp_path, "--config", f"prereg={PREREG}", f"bundle={bundle}")
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and lines[0].startswith(head), p.stderr[-3000:]
    assert "nothing was written" in lines[0]
    assert not (tmp_path / "results" / "demo").exists()


def test_an_unused_policy_s_population_column_is_not_asked_for(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """A mean policy no measured column uses, whose population names a column the
    instance table lacks: neither contestant reads it (each names the population columns
    of the policies its columns use), so both run; preflight asked for every declared
    policy's column and refused the bundle (missing_column) that both contestants take."""
    text = PREREG.read_text(encoding="utf-8")
    unused = "  E: {recipe: mean, nulls: exclude, population: {not_null: absent}, description: x}\n"
    assert "\n  D: {recipe: mean" in text and "absent" not in text
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace("\n  D: {recipe: mean", f"\n{unused}  D: {{recipe: mean", 1))
    for impl in IMPLS:  # both contestants take it (an independent reading of the rule)
        res = run_impl(impl, prereg, demo_bundle, tmp_path / f"out-{impl}")
        assert res.code == 0, (impl, res.stderr)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={demo_bundle}"]
    p = run_dag(tmp_path, "-n", "--config", *config)  # the checks as the workflow is read
    assert p.returncode == 0, p.stderr[-3000:]
    assert "error[" not in p.stderr
