"""A mean policy's population (docs/contract.md, Recipes): ``population: {not_null: resolved}``
takes the mean over the instance rows whose ``resolved`` is not null only.

Both contestants on the demo bundle, each cost cell checked against polars (an
independent method: filter, then mean), and the refusals of a population column
that is absent or not boolean. Without the change the key is refused (bad_prereg)."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPL_PARAMS, ROOT, read_csv_rows, run_impl

C_ALL = '  C: {recipe: mean, nulls: exclude, description: "null cost is left out"}'
D_ALL = '  D: {recipe: mean, nulls: zero, description: "null cost counts as 0"}'


def _prereg(path: Path, column: str = "resolved") -> Path:
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert C_ALL in text and D_ALL in text
    pop = f"population: {{not_null: {column}}}, "
    text = text.replace(C_ALL, C_ALL.replace("nulls: exclude, ", f"nulls: exclude, {pop}"))
    text = text.replace(D_ALL, D_ALL.replace("nulls: zero, ", f"nulls: zero, {pop}"))
    path.write_text(text, encoding="utf-8")
    return path


def _expected(bundle: Path) -> dict[tuple[str, str, str], float | None]:
    """(row, group, policy) -> the mean over rows with resolved not null, by polars."""
    inst = pl.read_parquet(bundle / "instances.parquet").with_columns(pl.col("cost").fill_nan(None))
    out: dict[tuple[str, str, str], float | None] = {}
    for (row, group), part in inst.group_by("id", "group"):
        kept = part.filter(pl.col("resolved").is_not_null())
        costs = kept.get_column("cost")
        present = costs.drop_nulls()
        out[(row, group, "C")] = (
            math.fsum(present.to_list()) / len(present) if len(present) else None
        )
        out[(row, group, "D")] = math.fsum(present.to_list()) / len(kept) if len(kept) else None
    return out


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_cost_means_over_the_publishers_population(impl, impl_envs, demo_bundle, tmp_path) -> None:
    prereg = _prereg(tmp_path / "pop.yaml")
    r = run_impl(impl, prereg, demo_bundle, tmp_path / "out")
    assert r.code == 0, r.stderr
    want = _expected(demo_bundle)
    seen = 0
    for c in read_csv_rows(tmp_path / "out" / "cells.csv"):
        if c["column"] not in ("alpha_cost", "beta_cost"):
            continue
        expected = want.get((c["row_id"], c["column"].removesuffix("_cost"), c["policy"]))
        if expected is None:
            assert c["tier"] == "no_data", c
        else:
            assert c["recomputed"] == f"{expected:.6f}", c
        seen += 1
    assert seen == 16  # 4 rows x 2 columns x 2 policies
    # by hand from the demo bundle: m4's beta rows are (true, 0.2) and (true, null), so
    # C = 0.2 / 1 and D = 0.2 / 2; m3's alpha rows all have resolved null: no data, where
    # the mean over every row (the demo arm) reproduces m3's alpha_cost under D
    cells = {
        (c["row_id"], c["column"], c["policy"]): c
        for c in read_csv_rows(tmp_path / "out" / "cells.csv")
    }
    assert cells[("demo/m4", "beta_cost", "C")]["recomputed"] == "0.200000"
    assert cells[("demo/m4", "beta_cost", "D")]["recomputed"] == "0.100000"
    assert cells[("demo/m3", "alpha_cost", "C")]["tier"] == "no_data"


@pytest.mark.parametrize("impl", IMPL_PARAMS)
@pytest.mark.parametrize(("column", "kind"), [("nowhere", "missing_column"), ("cost", "bad_type")])
def test_a_population_column_absent_or_not_boolean_is_refused(
    impl, column, kind, impl_envs, demo_bundle, tmp_path
) -> None:
    prereg = _prereg(tmp_path / "pop.yaml", column)
    r = run_impl(impl, prereg, demo_bundle, tmp_path / "out")
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.code == 2 and len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error[{kind}]: {demo_bundle}/instances.parquet: "), lines
    assert not (tmp_path / "out").exists()
