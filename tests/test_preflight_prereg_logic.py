"""A leaderboard prereg both contestants refuse is refused before any job (issue 27).

Each prereg below satisfies the schema, and the lock's own checks let it through: the
arm was locked, and both contestants then refused it as bad_prereg after the lock, so
the corrected prereg was a new arm. The rules are the contestants' (impl_pandas
prereg/leaderboard.py and ranks.py, impl_pyarrow prereg/cells.py and ranks.py) and
docs/contract.md's (Recipes, Feasibility, Ranks): a mean_of_columns column that lists
itself; a feasibility column that is not a no_antecedent column or a measured one of
any recipe but single_value (a structural integer column passes the kinds' check, so
only this rule refuses it); an over.column that is not a structural or no_antecedent
column; scores whose least is not below its greatest; ranks on a column the
contestants do not rank (a sum among them: docs/contract.md, Ranks, refuses it, and both
contestants and the lock ranked it as a mean until issue 27's hunt). Now the referee's prereg checks (audit/cells/prereg.py, the
lock's and preflight's) refuse each: exit 2, one line naming the prereg, nothing under
results/<arm>/ (the workflow run for real on the shipped demo bundle).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

SEED = "\nseed: 7\n"
MOC = "average_cost: {recipe: mean_of_columns, columns: [alpha_cost, beta_cost]"


def _feasibility(column: str, over: str = "8", scores: str = "[0, 1]") -> tuple[str, str]:
    block = f"{{over: {over}, scale: 100, scores: {scores}, decimals: 1, rounding: half_even}}"
    return SEED, f"\nfeasibility:\n  {column}: {block}{SEED}"


def _ranks(column: str) -> tuple[str, str]:
    block = f"{{columns: [{column}], alpha: 0.05, correction: holm, seed: 1, draws: 10}}"
    return SEED, f"\nranks: {block}{SEED}"


CASES = {
    # average_cost averages alpha_cost and itself
    "mean_of_columns_of_itself": (
        (MOC, MOC.replace("[alpha_cost, beta_cost]", "[alpha_cost, average_cost]")),
        "column 'average_cost': mean_of_columns refers to itself",
    ),
    # not a column of the prereg at all
    "feasibility_unknown_column": (
        _feasibility("nonexistent"),
        "feasibility 'nonexistent': not a no_antecedent column",
    ),
    # structural, of kind integer in the demo leaderboard (so not bad_type)
    "feasibility_structural_column": (
        _feasibility("categories_completed"),
        "feasibility 'categories_completed': not a no_antecedent column",
    ),
    # alpha_score is measured, not structural or no_antecedent
    "feasibility_over_a_measured_column": (
        _feasibility("runtime", over="{column: alpha_score}"),
        "feasibility 'runtime': over.column 'alpha_score' is not a structural or no_antecedent",
    ),
    "feasibility_scores_least_not_below_greatest": (
        _feasibility("runtime", scores="[1, 1]"),
        "feasibility 'runtime': scores [1, 1]: the least must be below the greatest",
    ),
    "ranks_on_a_mean_of_columns": (
        _ranks("average_cost"),
        "ranks: 'average_cost' is not a measured rate or mean column",
    ),
    # alpha_cost made a sum (docs/contract.md, Ranks: a sum column is not ranked)
    "ranks_on_a_sum": (
        [("alpha_cost: {recipe: mean,", "alpha_cost: {recipe: sum,"), _ranks("alpha_cost")],
        "ranks: 'alpha_cost' is not a measured rate or mean column",
    ),
    "ranks_on_a_single_value": (
        _ranks("model"),
        "ranks: 'model' is not a measured rate or mean column",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_prereg_the_contestants_refuse_is_refused_before_any_job(
    case: str, tmp_path: Path, demo_bundle: Path
) -> None:
    subs, words = CASES[case]
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    for old, new in subs if isinstance(subs, list) else [subs]:
        assert old in text
        text = text.replace(old, new, 1)
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text, encoding="utf-8")
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={demo_bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0].startswith(f"error[bad_prereg]: {prereg}: {words}"), lines
    assert not (tmp_path / "results" / "demo").exists()
