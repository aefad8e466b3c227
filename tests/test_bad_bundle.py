"""A bad bundle stops both contestants with the same one-line error and no output."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPLS, ROOT, copy_bundle, run_impl

PREREG = ROOT / "prereg" / "demo.yaml"


def _missing_file(b: Path) -> None:
    (b / "instances.parquet").unlink()


def _truncated(b: Path) -> None:
    data = (b / "leaderboard.parquet").read_bytes()
    (b / "leaderboard.parquet").write_bytes(data[: len(data) // 2])


def _missing_column(b: Path) -> None:
    pl.read_parquet(b / "leaderboard.parquet").drop("alpha_cost").write_parquet(
        b / "leaderboard.parquet"
    )


def _undeclared_column(b: Path) -> None:
    df = pl.read_parquet(b / "leaderboard.parquet").with_columns(pl.lit(1.0).alias("extra"))
    df.write_parquet(b / "leaderboard.parquet")


def _duplicate_id(b: Path) -> None:
    df = pl.read_parquet(b / "leaderboard.parquet")
    pl.concat([df, df.head(1)]).write_parquet(b / "leaderboard.parquet")


def _duplicate_instance(b: Path) -> None:
    df = pl.read_parquet(b / "instances.parquet")
    pl.concat([df, df.tail(1)]).write_parquet(b / "instances.parquet")


def _score_as_text(b: Path) -> None:
    df = pl.read_parquet(b / "leaderboard.parquet").with_columns(
        pl.col("alpha_score").cast(pl.String)
    )
    df.write_parquet(b / "leaderboard.parquet")


def _resolved_as_int(b: Path) -> None:
    df = pl.read_parquet(b / "instances.parquet").with_columns(pl.col("resolved").cast(pl.Int64))
    df.write_parquet(b / "instances.parquet")


def _two_models(b: Path) -> None:
    df = pl.read_parquet(b / "instances.parquet")
    df = df.with_columns(
        pl.when(pl.col("instance_id") == "alpha-00")
        .then(pl.lit("other"))
        .otherwise(pl.col("model"))
        .alias("model")
    )
    df.write_parquet(b / "instances.parquet")


# case -> (how to break the demo bundle, error class, file named in the message)
CASES = {
    "missing file": (_missing_file, "missing_file", "instances.parquet"),
    "truncated parquet": (_truncated, "unreadable", "leaderboard.parquet"),
    "missing column": (_missing_column, "missing_column", "leaderboard.parquet"),
    "undeclared column": (_undeclared_column, "undeclared_column", "leaderboard.parquet"),
    "duplicate row id": (_duplicate_id, "duplicate_key", "leaderboard.parquet"),
    "duplicate instance key": (_duplicate_instance, "duplicate_key", "instances.parquet"),
    "score stored as text": (_score_as_text, "bad_type", "leaderboard.parquet"),
    "resolved stored as integer": (_resolved_as_int, "bad_type", "instances.parquet"),
    "two models for one id": (_two_models, "ambiguous_value", "instances.parquet"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_both_contestants_refuse_alike(
    case: str, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    breaker, kind, name = CASES[case]
    bundle = copy_bundle(demo_bundle, tmp_path / "bundle")
    breaker(bundle)
    seen = {}
    for impl in IMPLS:
        out = tmp_path / f"out-{impl}"
        res = run_impl(impl, PREREG, bundle, out)
        assert res.code == 2, (impl, res.stderr)
        assert "Traceback" not in res.stderr, (impl, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, (impl, res.stderr)
        assert lines[0].startswith(f"error[{kind}]: {bundle / name}: "), (impl, lines[0])
        assert not out.exists() or not any(out.iterdir()), f"{impl} left output behind"
        seen[impl] = lines[0].split(":")[0]
    assert seen["pandas"] == seen["pyarrow"]
