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


# Kinds judged against what the prereg declares of them (docs/contract.md, bad_type):
# each case edits the demo prereg (``edit``: old text -> new text, both checked) and may
# rewrite an instance column. Before preflight judged them, each passed the lock and was
# refused by both contestants after it. The expected class and file are each
# contestant's own answer on the same input (run below), not the referee's.
FEASIBLE = "  runtime: {over: 8, scale: 100, scores: [0, 1], decimals: 1, rounding: half_even}\n"
PREREG_CASES = {
    # notes, a text label, declared as a rate over 8 items
    "feasibility column as text": (
        [("\nseed: 7\n", "\nfeasibility:\n" + FEASIBLE.replace("runtime", "notes") + "seed: 7\n")],
        None,
        ("leaderboard.parquet", "'notes'"),
    ),
    # alpha_score (a rate) over a count column that is floating (runtime), not integer
    "feasibility count column as floating": (
        [
            (
                "\nseed: 7\n",
                "\nfeasibility:\n"
                + FEASIBLE.replace("runtime", "alpha_score").replace(
                    "over: 8", "over: {column: runtime}"
                )
                + "seed: 7\n",
            )
        ],
        None,
        ("leaderboard.parquet", "'runtime'"),
    ),
    # beta_cost declared a sum (a total, docs/contract.md, Recipes) of model, a text column
    "sum source as text": (
        [("beta_cost: {recipe: mean, source: cost,", "beta_cost: {recipe: sum, source: model,")],
        None,
        ("instances.parquet", "'model'"),
    ),
    # the mean policies C and D restricted to rows whose model (text) is not null
    "population column as text": (
        [
            (
                "mean, nulls: exclude, description",
                "mean, nulls: exclude, population: {not_null: model}, description",
            ),
            (
                "mean, nulls: zero, description",
                "mean, nulls: zero, population: {not_null: model}, description",
            ),
        ],
        None,
        ("instances.parquet", "'model'"),
    ),
    # alpha_score's universe of instance ids held in cost, a floating column
    "universe column as floating": (
        [
            (
                "group: alpha, scale: 100, policies: [A, B], tolerance: score}",
                "group: alpha, scale: 100, policies: [A, B], tolerance: score, denominator:"
                " {universe: {column: cost, ids: [alpha-00], missing: as_null}}}",
            )
        ],
        None,
        ("instances.parquet", "'cost'"),
    ),
}


@pytest.mark.parametrize("case", list(PREREG_CASES))
def test_a_declared_kind_that_does_not_fit_is_refused_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    from audit.files import file_blake3

    edits, change, (file, column) = PREREG_CASES[case]
    text = PREREG.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text, encoding="utf-8")
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    if change is not None:
        _rewrite(bundle, "instances.parquet", change)
    head = f"error[bad_type]: {bundle}/{file}: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
        assert column in res.stderr, (impl, res.stderr)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and lines[0].startswith(head), p.stderr[-3000:]
    assert column in lines[0] and "nothing was written" in lines[0], lines[0]
    assert not (tmp_path / "results" / "demo").exists()
