"""Synthetic bundles (audit/bundles/generate.py): deterministic, and their planted divergences found."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPL_PARAMS, IMPLS, ROOT, run_audit, run_impl

PREREG = ROOT / "prereg" / "synthetic.yaml"


def generate(out: Path, rows: int, models: int = 40, seed: int = 1) -> Path:
    res = run_audit("generate", "--rows", rows, "--models", models, "--seed", seed, "--out", out)
    assert res.code == 0, res.stderr
    return out


def cells(path: Path, cls: str | None = None) -> set[tuple[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return {
            (r["row_id"], r["column"])
            for r in csv.DictReader(f)
            if cls is None or r["class"] == cls
        }


def test_the_generator_is_deterministic_and_shaped_like_openhands(tmp_path: Path) -> None:
    a = generate(tmp_path / "a", 20_000, models=12)
    b = generate(tmp_path / "b", 20_000, models=12)
    for name in ("test.parquet", "instances.parquet", "planted.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    other = generate(tmp_path / "c", 20_000, models=12, seed=2)
    assert (other / "instances.parquet").read_bytes() != (a / "instances.parquet").read_bytes()
    lb = pl.read_parquet(a / "test.parquet")
    inst = pl.read_parquet(a / "instances.parquet")
    assert lb.height == 12 and lb.width == 38
    assert inst.columns == [
        "id",
        "agent_name",
        "agent_type",
        "language_model",
        "benchmark",
        "category",
        "instance_id",
        "resolved",
        "cost",
    ]
    assert 19_000 <= inst.height <= 20_000
    assert inst["resolved"].null_count() > 0 and inst["cost"].null_count() > 0
    assert inst.select(pl.struct("id", "benchmark", "instance_id").is_unique().all()).item()
    assert inst.equals(inst.sort("id", "benchmark", "instance_id"))


@pytest.fixture(scope="module")
def million(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Path]]:
    """A 1M-row bundle and both contestants' outputs on it."""
    bundle = generate(tmp_path_factory.mktemp("synthetic-1m"), 1_000_000)
    outs = {}
    for impl in IMPLS:
        outs[impl] = tmp_path_factory.mktemp(f"out-{impl}")
        res = run_impl(impl, PREREG, bundle, outs[impl])
        assert res.code == 0, res.stderr
    return bundle, outs


@pytest.mark.slow
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_planted_divergences_are_found_exactly_at_1m_rows(million, impl: str) -> None:
    bundle, outs = million
    planted = cells(bundle / "planted.csv")
    assert len(planted) >= 10
    assert cells(outs[impl] / "census.csv", "divergent") == planted
    # every other measured cell reproduces, or has no data (a category the model lacks)
    with (outs[impl] / "census.csv").open(newline="", encoding="utf-8") as f:
        classes = {r["class"] for r in csv.DictReader(f)}
    assert classes == {"structural", "no_antecedent", "reproduced", "divergent", "no_data"}


@pytest.mark.slow
def test_both_contestants_write_the_same_bytes_at_1m_rows(million) -> None:
    _, outs = million
    for name in ("cells.csv", "census.csv", "nulls.csv"):
        assert (outs["pandas"] / name).read_bytes() == (outs["pyarrow"] / name).read_bytes(), name
