"""A column whose kind does not fit its role, judged from the schemas before the lock.

Both contestants refuse as bad_type (docs/contract.md) a measured leaderboard column
(rate, mean, mean_of_columns) that is not integer or floating, a rate's source that is
not boolean, a mean's source that is not integer or floating (the conformance case
schema_cost_as_string_fail) and row ids of another kind in the instance table than in
the leaderboard. polars reads such tables, so the lock accepted them, the arm was
locked, and only the contestants refused them. Now the workflow refuses each as it is
read: the contestants' class and file (expected: each contestant run on the same bundle,
an independent reading; their words differ from each other), exit 2, nothing under
results/<arm>/.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPLS, ROOT, run_dag, run_impl

PREREG = ROOT / "prereg" / "demo.yaml"


def _rewrite(bundle: Path, name: str, change: pl.Expr) -> None:
    table = pl.read_parquet(bundle / name)
    table.with_columns(change).write_parquet(bundle / name)


CASES = {
    # the mean alpha_cost's source, cost, stored as text
    "mean source as text": ("instances.parquet", pl.col("cost").cast(pl.String), "'cost'"),
    # the rate alpha_score's source, resolved, stored as 0 and 1
    "rate source as integers": (
        "instances.parquet",
        pl.col("resolved").cast(pl.Int64),
        "'resolved'",
    ),
    # the measured rate alpha_score published as text
    "measured column as text": (
        "leaderboard.parquet",
        pl.col("alpha_score").cast(pl.String),
        "'alpha_score'",
    ),
    # the instance table's row ids as integers, one a row (no instance key repeats)
    "row ids of another kind": ("instances.parquet", pl.int_range(pl.len()).alias("id"), "'id'"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_kind_that_does_not_fit_is_refused_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    file, change, column = CASES[case]
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    _rewrite(bundle, file, change)
    head = f"error[bad_type]: {bundle}/{file}: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, PREREG, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    p = run_dag(tmp_path, "--config", f"prereg={PREREG}", f"bundle={bundle}")
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and lines[0].startswith(head), p.stderr[-3000:]
    assert column in lines[0] and "nothing was written" in lines[0], lines[0]
    assert not (tmp_path / "results" / "demo").exists()
