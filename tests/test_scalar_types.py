"""Non-nested types a recipe cannot read, refused before the lock (docs/contract.md, Types).

A date, time, timestamp, DECIMAL, binary (BYTE_ARRAY without a string annotation) or
null-typed column is of kind other (or null): the contract reads it only as a label.
Where a recipe or a key reads it, preflight refuses it (audit/preflight.py,
check_column_types) with the contestants' own class and words, naming the user's
bundle file, before anything is written. An Arrow duration is a plain INT64 in the
file (an integer) and a categorical a dictionary-encoded STRING (a string): accepted.

Each bundle is the demo's with one column replaced, written with polars; which column
is read where is worked out from prereg/demo.yaml (alpha_cost is measured; cost is the
mean's source; id is the row id; release is a no_antecedent label).
"""

from __future__ import annotations

import datetime
import decimal
import shutil
from pathlib import Path

import polars as pl
import pytest

from audit.cells import bundle_checks
from audit.cells.prereg import load_record
from audit.cells.record import Prereg
from audit.errors import AuditError
from audit.files import file_blake3
from tests.conftest import ROOT, run_dag, run_impl

OUTSIDE = "has a type outside the contract's kinds here"


def _values(kind: str, n: int) -> pl.Series:
    """n values of ``kind``, the column's name set by the caller."""
    if kind == "date":
        return pl.Series([datetime.date(2026, 1, 1 + i % 28) for i in range(n)])
    if kind == "datetime":
        return pl.Series([datetime.datetime(2026, 1, 1, i % 24) for i in range(n)])
    if kind == "time":
        return pl.Series([datetime.time(i % 24, 0) for i in range(n)])
    if kind == "decimal":
        return pl.Series([decimal.Decimal(f"{i}.25") for i in range(n)], dtype=pl.Decimal(10, 2))
    if kind == "binary":
        return pl.Series([f"b{i}".encode() for i in range(n)], dtype=pl.Binary)
    if kind == "null":
        return pl.Series([None] * n, dtype=pl.Null)
    if kind == "duration":
        return pl.Series([datetime.timedelta(seconds=i) for i in range(n)])
    if kind == "categorical":
        return pl.Series([f"c{i % 3}" for i in range(n)], dtype=pl.Categorical)
    raise AssertionError(kind)


def _bundle(demo_bundle: Path, folder: Path, table: str, column: str, kind: str) -> Path:
    bundle = folder / "bundle"
    shutil.copytree(demo_bundle, bundle)
    path = bundle / f"{table}.parquet"
    df = pl.read_parquet(path)
    df.with_columns(_values(kind, df.height).alias(column)).write_parquet(path)
    return bundle


def _demo() -> Prereg:
    return load_record(ROOT / "prereg" / "demo.yaml")


def _refusal(doc: Prereg, bundle: Path) -> AuditError:
    with pytest.raises(AuditError) as e:
        bundle_checks.check_column_types(doc, str(bundle))
    assert e.value.kind == "unsupported_type" and e.value.status == 2
    assert "\n" not in str(e.value)
    return e.value


CASES = [
    # (table, column, kind, the contestants' words)
    ("leaderboard", "alpha_cost", "date", OUTSIDE),  # a measured column
    ("leaderboard", "alpha_cost", "decimal", OUTSIDE),
    ("leaderboard", "alpha_cost", "null", "has the null type here"),
    ("instances", "cost", "datetime", OUTSIDE),  # a mean's source
    ("instances", "cost", "time", OUTSIDE),
    ("instances", "id", "binary", OUTSIDE),  # the instance table's row id
]


@pytest.mark.parametrize(("table", "column", "kind", "words"), CASES)
def test_a_read_column_of_kind_other_or_null_is_refused_before_the_lock(
    demo_bundle: Path, tmp_path: Path, table: str, column: str, kind: str, words: str
) -> None:
    bundle = _bundle(demo_bundle, tmp_path, table, column, kind)
    err = _refusal(_demo(), bundle)
    assert err.path == f"{bundle}/{table}.parquet"
    assert err.detail.startswith(f"column {column!r} {words} ("), err.detail
    assert err.detail.endswith("nothing was written")


@pytest.mark.parametrize("kind", ["date", "decimal", "binary", "null"])
def test_the_same_column_as_a_label_is_accepted(
    demo_bundle: Path, tmp_path: Path, kind: str
) -> None:
    # release is declared no_antecedent in the demo: never read as values, any type
    bundle = _bundle(demo_bundle, tmp_path, "leaderboard", "release", kind)
    bundle_checks.check_column_types(_demo(), str(bundle))
    # and an instance column no recipe names is never read
    inst = bundle / "instances.parquet"
    df = pl.read_parquet(inst)
    df.with_columns(_values(kind, df.height).alias("unnamed")).write_parquet(inst)
    bundle_checks.check_column_types(_demo(), str(bundle))


@pytest.mark.parametrize("kind", ["duration", "categorical"])
def test_a_duration_or_categorical_is_left_to_the_contestants(
    demo_bundle: Path, tmp_path: Path, kind: str
) -> None:
    # in the file an integer (INT64) and a string (dictionary-encoded STRING): kinds the
    # contract reads, so preflight must not refuse them on polars' in-memory type
    bundle = _bundle(demo_bundle, tmp_path, "leaderboard", "alpha_cost", kind)
    bundle_checks.check_column_types(_demo(), str(bundle))


@pytest.mark.parametrize(
    ("table", "column", "kind"),
    [
        ("leaderboard", "alpha_cost", "date"),
        ("instances", "cost", "decimal"),
        ("leaderboard", "alpha_cost", "null"),
    ],
)
def test_preflight_says_what_both_contestants_say(
    impl_envs, demo_bundle: Path, tmp_path: Path, table: str, column: str, kind: str
) -> None:
    bundle = _bundle(demo_bundle, tmp_path, table, column, kind)
    prereg = ROOT / "prereg" / "demo.yaml"
    err = _refusal(_demo(), bundle)
    ours = f"error[{err.kind}]: {err.path}: {err.detail}"
    for impl in ("pandas", "pyarrow"):
        res = run_impl(impl, prereg, bundle, tmp_path / impl)
        assert res.code == 2, res.stderr
        line = res.stderr.strip()
        # the contestant's line is preflight's up to the type preflight adds in brackets
        assert line.startswith("error[unsupported_type]: ") and ours.startswith(line + " ("), (
            line,
            ours,
        )


def test_a_date_source_stops_the_run_before_the_lock(demo_bundle: Path, tmp_path: Path) -> None:
    bundle = _bundle(demo_bundle, tmp_path, "instances", "cost", "date")
    prereg = ROOT / "prereg" / "demo.yaml"
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert lines == [
        f"error[unsupported_type]: {bundle}/instances.parquet: column 'cost' {OUTSIDE}"
        " (Date; docs/contract.md, Types); nothing was written"
    ], p.stderr[-3000:]
    assert not (tmp_path / "results" / "demo").exists()
