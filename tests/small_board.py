"""A small cells-v1 bundle and prereg written by a test, for the recipe and tier semantics
(docs/contract.md, Recipes and Tiers): one leaderboard of published numbers, one
instance table, and a prereg around the measured columns and tolerances a test
declares. The numbers are the test's own, chosen so that the expected values can
be worked out by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from tests.conftest import read_csv_rows, run_impl

PREREG = """\
version: 1
name: small-board
disclosure:
  auditor: a test
  relations: []
  publication: published whatever it is
bundle:
  leaderboard: board.parquet
  instances: instances.parquet
  row_id: id
  instance_key: [id, group, instance_id]
  group_by: group
rounding: half_even
nan_in_sources: as_null
columns:
  structural: [id]
  no_antecedent: []
  measured:
{measured}
policies:
  A: {{recipe: rate, nulls: failure, description: "a null outcome counts as a failure"}}
  B: {{recipe: rate, nulls: exclude, description: "a null outcome leaves the denominator"}}
  C: {{recipe: mean, nulls: exclude, description: "a null value is left out"}}
  D: {{recipe: mean, nulls: zero, description: "a null value counts as 0"}}
tolerances:
{tolerances}
seed: 1
null_draws: 20
chance: {{epsilon: 1.0e-12, threshold: 0.001}}
controls:{controls}
"""


def write_bundle(
    folder: Path,
    published: dict[str, list[Any]],
    instances: list[dict[str, Any]],
    schema: dict[str, Any] | None = None,
) -> Path:
    """board.parquet (published: column -> values, `id` first) and instances.parquet."""
    folder.mkdir(parents=True, exist_ok=True)
    pl.DataFrame(published).write_parquet(folder / "board.parquet")
    pl.DataFrame(instances, schema=schema, orient="row").write_parquet(folder / "instances.parquet")
    return folder


def outcomes(row: str, group: str, true: int, false: int, null: int = 0) -> list[dict[str, Any]]:
    """Instance rows of one (row, group): `true` resolved, `false` not, `null` unknown."""
    flags = [True] * true + [False] * false + [None] * null
    return [
        {"id": row, "group": group, "instance_id": f"{group}-{i:04d}", "resolved": f, "cost": None}
        for i, f in enumerate(flags)
    ]


def costs(row: str, group: str, values: list[float | None]) -> list[dict[str, Any]]:
    """Instance rows of one (row, group) with these costs (resolved null)."""
    return [
        {"id": row, "group": group, "instance_id": f"{group}-{i:04d}", "resolved": None, "cost": v}
        for i, v in enumerate(values)
    ]


SCHEMA = {
    "id": pl.String,
    "group": pl.String,
    "instance_id": pl.String,
    "resolved": pl.Boolean,
    "cost": pl.Float64,
}


def write_prereg(
    path: Path, measured: list[str], tolerances: list[str], controls: list[str] = ()
) -> Path:
    """The prereg above with these `columns.measured`, `tolerances` and `controls` lines."""
    text = PREREG.format(
        measured="\n".join(f"    {m}" for m in measured),
        tolerances="\n".join(f"  {t}" for t in tolerances),
        controls="".join(f"\n  {c}" for c in controls) or " {}",
    )
    path.write_text(text, encoding="utf-8")
    return path


def recompute(impl: str, prereg: Path, bundle: Path, out: Path) -> dict[str, Any]:
    """Run one contestant; its cells, census and reproduce table by key."""
    r = run_impl(impl, prereg, bundle, out)
    assert r.code == 0, r.stderr
    return {
        "cells": {
            (c["row_id"], c["column"], c["policy"]): c for c in read_csv_rows(out / "cells.csv")
        },
        "census": {(c["row_id"], c["column"]): c for c in read_csv_rows(out / "census.csv")},
        "reproduce": {
            (c["column"], c["row_id"]): c["reproduced_by"]
            for c in read_csv_rows(out / "reproduce.csv")
        },
        "chance": {c["column"]: c for c in read_csv_rows(out / "chance.csv")},
    }
