"""What a bundle's values hold, judged before any job (audit/cells/bundle_values.py).

Both contestants refuse, after reading the values (docs/contract.md, Command line): a
string that is not valid UTF-8 (unreadable), two leaderboard rows with one row id or two
instance rows with one instance key (duplicate_key), an infinite value in a mean's
source (bad_type), a single_value source with two values for one row
(ambiguous_value). The lock accepted all but the first (and the first it refused as a
job, after the run had started), so the arm was locked and only the contestants
refused them. Now the workflow refuses each as it is read: the contestants' class and
file (expected: each contestant run on the same input, an independent reading), one
line, exit 2, nothing under results/<arm>/. Inputs that look wrong but are valid (the
conformance suite's _pass cases) are not refused.
"""

from __future__ import annotations

import csv
import io
import math
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.files import file_blake3
from tests.conftest import IMPLS, ROOT, run_dag, run_impl

PREREG = ROOT / "prereg" / "demo.yaml"


def _not_utf8(file: Path, column: str, bad: bytes = b"\xff") -> None:
    """The table with the first value of ``column`` made ``demo/m`` + ``bad`` in the file:
    written as a mark of as many bytes (uncompressed, without statistics), then the mark
    byte-edited, so every length the file records stays true."""
    mark = "demo/m" + "\x01" * len(bad)
    table = pl.read_parquet(file)
    first = table[column][0]
    table = table.with_columns(
        pl.when(pl.col(column) == first).then(pl.lit(mark)).otherwise(pl.col(column)).alias(column)
    )
    table.write_parquet(file, compression="uncompressed", statistics=False)
    data = file.read_bytes()
    assert mark.encode() in data
    file.write_bytes(data.replace(mark.encode(), b"demo/m" + bad))


def _edit(file: Path, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    change(pl.read_parquet(file)).write_parquet(file)


def _m1_alpha_00(df: pl.DataFrame) -> pl.Expr:
    return (pl.col("id") == "demo/m1") & (pl.col("instance_id") == "alpha-00")


# case -> (how the demo bundle is broken, class, file, words the line holds)
CASES = {
    "an instance row id not UTF-8": (
        lambda b: _not_utf8(b / "instances.parquet", "id"),
        "unreadable",
        "instances.parquet",
        "column 'id' holds a string that is not valid UTF-8",
    ),
    "a leaderboard label not UTF-8": (
        lambda b: _not_utf8(b / "leaderboard.parquet", "notes"),
        "unreadable",
        "leaderboard.parquet",
        "column 'notes' holds a string that is not valid UTF-8",
    ),
    # demo/m3's row carries demo/m1's id (no control names demo/m3)
    "a row id twice": (
        lambda b: _edit(
            b / "leaderboard.parquet",
            lambda df: df.with_columns(
                pl.when(pl.col("id") == "demo/m3")
                .then(pl.lit("demo/m1"))
                .otherwise(pl.col("id"))
                .alias("id")
            ),
        ),
        "duplicate_key",
        "leaderboard.parquet",
        "row id (demo/m1) occurs more than once",
    ),
    # demo/m1's alpha-00 row written a second time, last
    "an instance key twice": (
        lambda b: _edit(
            b / "instances.parquet",
            lambda df: pl.concat([df, df.filter(_m1_alpha_00(df))]),
        ),
        "duplicate_key",
        "instances.parquet",
        "instance key (demo/m1, alpha, alpha-00) occurs more than once",
    ),
    # one cost, the source of the means alpha_cost and beta_cost, is -inf
    "an infinite mean source": (
        lambda b: _edit(
            b / "instances.parquet",
            lambda df: df.with_columns(
                pl.when(_m1_alpha_00(df))
                .then(float("-inf"))
                .otherwise(pl.col("cost"))
                .alias("cost")
            ),
        ),
        "bad_type",
        "instances.parquet",
        "mean source 'cost' (for 'alpha_cost') holds an infinite value",
    ),
    # one of demo/m1's instance rows names another model than the rest (m1-base)
    "two values of a single_value source": (
        lambda b: _edit(
            b / "instances.parquet",
            lambda df: df.with_columns(
                pl.when(_m1_alpha_00(df))
                .then(pl.lit("m1-large"))
                .otherwise(pl.col("model"))
                .alias("model")
            ),
        ),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 2 distinct values for row id 'demo/m1'",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_value_is_refused_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    breaks, kind, file, words = CASES[case]
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    breaks(bundle)
    head = f"error[{kind}]: {bundle}/{file}: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, PREREG, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    p = run_dag(tmp_path, "--config", f"prereg={PREREG}", f"bundle={bundle}")
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0] == head + words, lines[0]
    assert not (tmp_path / "results" / "demo").exists()


# Byte sequences that are never UTF-8: a byte no sequence uses, a lone continuation
# byte, an overlong NUL, a UTF-16 surrogate, a sequence cut short, a code point above
# U+10FFFF. polars' reader refuses each (it decodes strictly); the check relies on that
# and this holds it to it, with the column found by reading each alone.
NEVER_UTF8 = [b"\xff", b"\x80", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"]


@pytest.mark.parametrize("bad", NEVER_UTF8, ids=lambda b: b.hex())
def test_every_malformed_sequence_is_unreadable(bad: bytes, demo_bundle: Path, tmp_path) -> None:
    from audit.bundles import parquet_kinds
    from audit.cells.bundle_values import Tables
    from audit.errors import AuditError
    from audit.kinds.arm_kind import load_checked

    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    _not_utf8(bundle / "instances.parquet", "model", bad)
    kind, _ = load_checked(str(PREREG))
    rec = kind.entry("record")(str(PREREG))
    tables = Tables(
        rec,
        str(bundle),
        parquet_kinds.kinds(bundle / "leaderboard.parquet"),
        parquet_kinds.kinds(bundle / "instances.parquet"),
    )
    with pytest.raises(AuditError) as e:
        tables.read_instances(["id", "group", "model", "cost"])
    assert (e.value.kind, e.value.path) == ("unreadable", f"{bundle}/instances.parquet")
    assert e.value.detail == "column 'model' holds a string that is not valid UTF-8"


def test_inputs_that_look_wrong_but_are_valid_pass(demo_bundle: Path, tmp_path: Path) -> None:
    """Every bundle, schema and keys _pass case of the conformance suite (nulls, NaN,
    negative and huge values, ids and groups spelled otherwise, ids on one table only, a
    table without rows, labels of any type, a feasibility declaration) passes the
    checks the workflow makes before the lock, as both contestants run it."""
    from audit import preflight
    from audit.kinds.arm_kind import load_checked
    from tests.conformance.kit import load_cases, new_workspace

    cases = [
        c
        for c in load_cases()
        if c.name.endswith("_pass") and c.name.startswith(("bundle_", "schema_", "keys_"))
    ]
    assert len(cases) >= 12, [c.name for c in cases]
    for case in cases:
        ws = new_workspace(tmp_path / case.name, demo_bundle)
        case.builder()(ws)
        kind, doc = load_checked(str(ws.prereg))
        rec = kind.entry("parse")(doc, str(ws.prereg))  # as the workflow parses it, once
        preflight.check_before_lock(kind, rec, str(ws.prereg), str(ws.bundle))


ALPHA = "alpha_score: {recipe: rate, source: resolved, group: alpha, scale: 100,"
EIGHT = ", ".join(f"alpha-{i:02d}" for i in range(8))  # the alpha ids the demo lists
NINE = ", ".join(f"alpha-{i:02d}" for i in range(1, 9))  # alpha-00 left out, alpha-08 in


def _null_alpha_07(b: Path) -> None:
    _edit(
        b / "instances.parquet",
        lambda df: df.with_columns(
            pl.when((pl.col("id") == "demo/m1") & (pl.col("instance_id") == "alpha-07"))
            .then(None)
            .otherwise(pl.col("instance_id"))
            .alias("instance_id")
        ),
    )


# case -> (alpha_score's declared denominator, how the bundle is broken, words of the
# line). Worked out by hand from the demo bundle: demo/m1 (first in the canonical
# order) lists alpha-00..alpha-07 (8 rows, each model 'm1-base'), demo/m2 lists 3.
DENOMINATORS = {
    "more instances than a fixed N": (
        "{fixed: 1}",
        None,
        "row id 'demo/m1' lists 8 instance rows for 'alpha_score', more than its declared"
        " denominator 1",
    ),
    "an id outside the universe": (
        "{universe: {column: instance_id, ids: [" + NINE + "], missing: as_null}}",
        None,
        "row id 'demo/m1' lists instance id 'alpha-00', not in the declared universe"
        " ('alpha_score')",
    ),
    "a null id": (
        "{universe: {column: instance_id, ids: [" + EIGHT + "], missing: as_null}}",
        _null_alpha_07,
        "row id 'demo/m1' lists 8 instance rows but 7 distinct ids ('alpha_score')",
    ),
    # every m1 row's model is m1-base: one id on 8 rows
    "an id twice": (
        "{universe: {column: model, ids: [m1-base, m2-base, m3-base, m4-base, x, y, z, w],"
        " missing: as_null}}",
        None,
        "row id 'demo/m1' lists 8 instance rows but 1 distinct ids ('alpha_score')",
    ),
    "not every id, missing: refuse": (
        "{universe: {column: instance_id, ids: [" + EIGHT + "], missing: refuse}}",
        None,
        "row id 'demo/m2' does not list instance id '%s' of the declared universe ('alpha_score')",
    ),
}


@pytest.mark.parametrize("case", list(DENOMINATORS))
def test_a_bad_denominator_is_refused_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    declared, breaks, words = DENOMINATORS[case]
    text = PREREG.read_text(encoding="utf-8")
    assert ALPHA in text
    prereg = tmp_path / "demo.yaml"
    prereg.write_text(text.replace(ALPHA, f"{ALPHA} denominator: {declared},"), encoding="utf-8")
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    if breaks is not None:
        breaks(bundle)
    if "%s" in words:  # the least alpha id demo/m2 does not list
        listed = pl.read_parquet(bundle / "instances.parquet").filter(
            (pl.col("id") == "demo/m2") & (pl.col("group") == "alpha")
        )["instance_id"]
        words = words % min({f"alpha-{i:02d}" for i in range(8)} - set(listed))
    head = f"error[bad_denominator]: {bundle}/instances.parquet: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0] == head + words, lines[0]
    assert not (tmp_path / "results" / "demo").exists()


# --- keys and single values of kind floating ------------------------------------------
# A float compares by more than its bits (0.0 equals -0.0, NaN equals nothing). The
# contract (docs/contract.md, Command line and Recipes) compares every float it matches
# as an IEEE number: 0.0 and -0.0 are one row id, one instance key, one value of a
# single_value source, and a row id -0.0 in the instance table links to the row 0.0; a
# NaN, equal to no key, is refused (bad_type) where duplicate_key is checked, just before
# it, table by table (the instance table's row id too, when the instance key leaves it
# out). The contestants read keys apart before (two NaN row ids: one to impl_pandas, two
# to impl_pyarrow; 0.0 and -0.0 two instance keys to both; a NaN key accepted; a NaN
# row id in the instance table read as null by both) and the workflow left any key, then
# any single value or denominator whose row ids or source held a NaN or a negative zero,
# to them (locked, then refused); now all follow it and the workflow judges them all.

NUMBERED = {"demo/m1": 1.0, "demo/m2": 2.0, "demo/m3": 3.0, "demo/m4": 4.0}


def _floating_ids(b: Path, numbers: dict[str, float] = NUMBERED) -> None:
    """The row id a double in both tables: demo/mK written K (demo/m1 is 1.0)."""
    for name in ("leaderboard.parquet", "instances.parquet"):
        _edit(
            b / name,
            lambda df: df.with_columns(
                pl.col("id").replace_strict(numbers, return_dtype=pl.Float64)
            ),
        )


def _floating_instance_ids(df: pl.DataFrame) -> pl.DataFrame:
    """instance_id a double: alpha-03 written 3.0."""
    return df.with_columns(pl.col("instance_id").str.slice(6).cast(pl.Float64))


def _alpha_3_twice(df: pl.DataFrame) -> pl.DataFrame:
    f = _floating_instance_ids(df)
    again = (pl.col("id") == "demo/m1") & (pl.col("group") == "alpha")
    return pl.concat([f, f.filter(again & (pl.col("instance_id") == 3.0))])


def _keyed_by_row(df: pl.DataFrame) -> pl.DataFrame:
    """A column n, each instance row's number from 0 in file order: the instance key of a
    prereg whose key leaves the row id out (``_floating_prereg(..., keyed=True)``)."""
    return df.with_row_index("n").with_columns(pl.col("n").cast(pl.Int64))


def _instance_id_nan_at_row_3(b: Path) -> None:
    """The row id a double (demo/mK written K), the instance table keyed by row number
    (n), its row 3 (demo/m1's alpha-03) with the row id NaN."""
    _floating_ids(b)
    _edit(
        b / "instances.parquet",
        lambda df: _keyed_by_row(df).with_columns(
            pl.when(pl.col("n") == 3).then(math.nan).otherwise(pl.col("id")).alias("id")
        ),
    )


def _m1_signed(b: Path, model: str | None = None) -> None:
    """demo/m1's row id -0.0 on the leaderboard and 0.0 in the instance table but for its
    alpha-00 row, -0.0 there too (named model ``model``, if given): the row's instance
    rows under both signs."""
    _floating_ids(b, {**NUMBERED, "demo/m1": 0.0})
    _edit(
        b / "leaderboard.parquet",
        lambda df: df.with_columns(
            pl.when(pl.col("id") == 0.0).then(-0.0).otherwise(pl.col("id")).alias("id")
        ),
    )
    m1_00 = (pl.col("id") == 0.0) & (pl.col("instance_id") == "alpha-00")
    _edit(
        b / "instances.parquet",
        lambda df: df.with_columns(
            pl.when(m1_00).then(-0.0).otherwise(pl.col("id")).alias("id"),
            pl.when(m1_00)
            .then(pl.lit(model) if model else pl.col("model"))
            .otherwise(pl.col("model"))
            .alias("model"),
        ),
    )


def _m1_models(values: dict[str, float], rest: float | None = None) -> Callable[[Path], None]:
    """The model source a double (demo/mK's rows K), demo/m1's rows ``rest`` (if given)
    but those named in ``values`` (instance id -> value)."""
    numbers = NUMBERED if rest is None else {**NUMBERED, "demo/m1": rest}

    def breaks(b: Path) -> None:
        _model_of(numbers)(b)
        m1 = pl.col("id") == "demo/m1"

        def change(df: pl.DataFrame) -> pl.DataFrame:
            model = pl.col("model")
            for instance, value in values.items():
                model = (
                    pl.when(m1 & (pl.col("instance_id") == instance)).then(value).otherwise(model)
                )
            return df.with_columns(model.alias("model"))

        _edit(b / "instances.parquet", change)

    return breaks


FIXED_ONE = "denominator: {fixed: 1},"
PLAIN, FIXED, KEYED = (), ("fixed",), ("keyed",)  # how the case's prereg is written
# case -> (the prereg: FIXED gives alpha_score FIXED_ONE, KEYED keys the instance table by
# its column n, not the row id; how the demo bundle is broken, class, file, words). Each
# worked out by hand from the demo bundle (demo/m1 lists alpha-00..alpha-07, each of
# model m1-base; demo/m2 lists beta-00..beta-09, each m2-base); the contestants run on
# each below say the same class.
FLOATING = {
    # demo/m3's row id written 1.0, demo/m1's
    "a floating row id twice": (
        PLAIN,
        lambda b: _floating_ids(b, {**NUMBERED, "demo/m3": 1.0}),
        "duplicate_key",
        "leaderboard.parquet",
        "row id (1.000000) occurs more than once",
    ),
    # demo/m1 1e-07, demo/m2 2e-07: two numbers, one name (docs/contract.md, Values: six
    # decimals, both 0.000000), so demo/m2's row, the second, repeats demo/m1's row id;
    # before, both contestants accepted it (their outputs could not tell the rows apart)
    "two floating row ids written alike": (
        PLAIN,
        lambda b: _floating_ids(b, {**NUMBERED, "demo/m1": 1e-7, "demo/m2": 2e-7}),
        "duplicate_key",
        "leaderboard.parquet",
        "row id (0.000000) occurs more than once",
    ),
    # demo/m1 0.1, demo/m2 0.1000001: both written 0.100000 (the seventh decimal dropped)
    "two floating row ids written alike, not near zero": (
        PLAIN,
        lambda b: _floating_ids(b, {**NUMBERED, "demo/m1": 0.1, "demo/m2": 0.1000001}),
        "duplicate_key",
        "leaderboard.parquet",
        "row id (0.100000) occurs more than once",
    ),
    # instance_id a double; (demo/m1, alpha, 3.0) written a second time, last
    "a floating instance key twice": (
        PLAIN,
        lambda b: _edit(b / "instances.parquet", _alpha_3_twice),
        "duplicate_key",
        "instances.parquet",
        "instance key (demo/m1, alpha, 3.000000) occurs more than once",
    ),
    "a floating row id over its fixed N": (
        FIXED,
        _floating_ids,
        "bad_denominator",
        "instances.parquet",
        "row id '1.000000' lists 8 instance rows for 'alpha_score', more than its declared"
        " denominator 1",
    ),
    # demo/m2's beta-03 row names another model
    "two models for a floating row id": (
        PLAIN,
        lambda b: (
            _floating_ids(b),
            _edit(
                b / "instances.parquet",
                lambda df: df.with_columns(
                    pl.when((pl.col("id") == 2.0) & (pl.col("instance_id") == "beta-03"))
                    .then(pl.lit("m2-large"))
                    .otherwise(pl.col("model"))
                    .alias("model")
                ),
            ),
        ),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 2 distinct values for row id '2.000000'",
    ),
    # the model a double (demo/mK's K.0), demo/m1's alpha-00 row 9.0
    "two values of a floating single_value source": (
        PLAIN,
        lambda b: _edit(
            b / "instances.parquet",
            lambda df: df.with_columns(
                pl.when(_m1_alpha_00(df))
                .then(9.0)
                .otherwise(pl.col("id").replace_strict(NUMBERED, return_dtype=pl.Float64))
                .alias("model")
            ),
        ),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 2 distinct values for row id 'demo/m1'",
    ),
    # demo/m1 (the leaderboard's row 0) NaN: a NaN is no key (accepted by both before)
    "a row id NaN": (
        PLAIN,
        lambda b: _floating_ids(b, {**NUMBERED, "demo/m1": float("nan")}),
        "bad_type",
        "leaderboard.parquet",
        "row id column 'id' holds NaN at row 0",
    ),
    # demo/m1 and demo/m3 NaN: refused as NaN, not as one id twice (impl_pandas' reading)
    # nor as two ids (impl_pyarrow's)
    "two row ids NaN": (
        PLAIN,
        lambda b: _floating_ids(b, {**NUMBERED, "demo/m1": math.nan, "demo/m3": math.nan}),
        "bad_type",
        "leaderboard.parquet",
        "row id column 'id' holds NaN at row 0",
    ),
    # instance_id a double; demo/m1's alpha-03 (row 3 of the instance table) NaN
    "an instance key NaN": (
        PLAIN,
        lambda b: _edit(
            b / "instances.parquet",
            lambda df: _floating_instance_ids(df).with_columns(
                pl.when(pl.int_range(pl.len()) == 3)
                .then(math.nan)
                .otherwise(pl.col("instance_id"))
                .alias("instance_id")
            ),
        ),
        "bad_type",
        "instances.parquet",
        "instance key column 'instance_id' holds NaN at row 3",
    ),
    # demo/m1 written 0.0, demo/m3 -0.0: one row id (one to both contestants before,
    # left to them by the workflow)
    "row ids 0.0 and -0.0": (
        PLAIN,
        lambda b: _floating_ids(b, {**NUMBERED, "demo/m1": 0.0, "demo/m3": -0.0}),
        "duplicate_key",
        "leaderboard.parquet",
        "row id (0.000000) occurs more than once",
    ),
    # demo/m1 written 0.0; its alpha-00 row written again, last, with the row id -0.0: one
    # instance key (two to both contestants before)
    "instance keys 0.0 and -0.0": (
        PLAIN,
        lambda b: _m1_alpha_00_again_as_negative_zero(b),
        "duplicate_key",
        "instances.parquet",
        "instance key (0.000000, alpha, alpha-00) occurs more than once",
    ),
    # --- moved before the lock (issue 27): on the old code, locked, then refused by both
    # contestants (but the NaN row id without a denominator, which both accepted) ---
    # the model a double (demo/mK's rows K), demo/m1's alpha-00 -0.0: 1.0 and -0.0
    "a single value -0.0 beside another": (
        PLAIN,
        _m1_models({"alpha-00": -0.0}),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 2 distinct values for row id 'demo/m1'",
    ),
    # demo/m1's rows 0.0, its alpha-00 -0.0 and alpha-01 9.0: two values as IEEE numbers
    # compare them (0 and 9), three if -0.0 were a value of its own
    "a single value 0.0, -0.0 and 9.0": (
        PLAIN,
        _m1_models({"alpha-00": -0.0, "alpha-01": 9.0}, rest=0.0),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 2 distinct values for row id 'demo/m1'",
    ),
    # demo/m1's rows K = 1.0, its alpha-00 -0.0 and alpha-01 9.0: three values (1, 0, 9),
    # the after-the-lock input of tests/test_input_refused_exit.py before
    "a single value -0.0 and two others": (
        PLAIN,
        _m1_models({"alpha-00": -0.0, "alpha-01": 9.0}),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 3 distinct values for row id 'demo/m1'",
    ),
    # the leaderboard's row id -0.0, its instance rows 0.0 but alpha-00 -0.0, of another
    # model: two values for the row only if both signs link to it
    "two models for a row id -0.0": (
        PLAIN,
        lambda b: _m1_signed(b, "m1-large"),
        "ambiguous_value",
        "instances.parquet",
        "'model' (for 'model') holds 2 distinct values for row id '0.000000'",
    ),
    # the same rows over a fixed N of 1: 8 alpha rows only if both signs link to the row
    "a row id -0.0 over its fixed N": (
        FIXED,
        _m1_signed,
        "bad_denominator",
        "instances.parquet",
        "row id '0.000000' lists 8 instance rows for 'alpha_score', more than its declared"
        " denominator 1",
    ),
    # the instance table keyed by n, its row 3's row id NaN: no row's (both read it as a
    # null and went on)
    "an instance row id NaN": (
        KEYED,
        _instance_id_nan_at_row_3,
        "bad_type",
        "instances.parquet",
        "row id column 'id' holds NaN at row 3",
    ),
    # the same over a fixed N of 1: refused as NaN, before any denominator is counted (the
    # contestants' bad_denominator after the lock, before)
    "an instance row id NaN over a fixed N": (
        FIXED + KEYED,
        _instance_id_nan_at_row_3,
        "bad_type",
        "instances.parquet",
        "row id column 'id' holds NaN at row 3",
    ),
}


def _floating_prereg(tmp: Path, fixed: bool, keyed: bool = False) -> Path:
    """The demo prereg with no control and no declared relation (they name demo/m2, a
    row a floating row id does not hold), alpha_score over a fixed N of 1 if asked, and
    the instance table keyed by its column n (not the row id) if asked."""
    text = PREREG.read_text(encoding="utf-8")
    assert ALPHA in text
    doc = yaml.safe_load(text.replace(ALPHA, f"{ALPHA} {FIXED_ONE}") if fixed else text)
    doc["controls"], doc["disclosure"]["relations"] = {}, []
    if keyed:
        doc["bundle"]["instance_key"] = ["n"]
    prereg = tmp / "demo.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return prereg


@pytest.mark.parametrize("case", list(FLOATING))
def test_a_floating_key_is_judged_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    options, breaks, kind, file, words = FLOATING[case]
    prereg = _floating_prereg(tmp_path, "fixed" in options, "keyed" in options)
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    breaks(bundle)
    head = f"error[{kind}]: {bundle}/{file}: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0] == head + words, lines[0]
    assert not (tmp_path / "results" / "demo").exists()


def _m1_alpha_00_again_as_negative_zero(b: Path) -> None:
    """demo/m1's row id 0.0; its alpha-00 row written again with the row id -0.0."""
    _floating_ids(b, {**NUMBERED, "demo/m1": 0.0})
    _edit(
        b / "instances.parquet",
        lambda df: pl.concat(
            [df, df.filter((pl.col("id") == 0.0) & (pl.col("instance_id") == "alpha-00"))
             .with_columns(pl.lit(-0.0).alias("id"))]
        ),
    )  # fmt: skip


def _model_of(numbers: dict[str, float]) -> Callable[[Path], None]:
    return lambda b: _edit(
        b / "instances.parquet",
        lambda df: df.with_columns(
            pl.col("id").replace_strict(numbers, return_dtype=pl.Float64).alias("model")
        ),
    )


def _instance_id_null_at_row_3(b: Path) -> None:
    """As _instance_id_nan_at_row_3, the row id null (no row's, and no error) where it
    was NaN."""
    _floating_ids(b)
    _edit(
        b / "instances.parquet",
        lambda df: _keyed_by_row(df).with_columns(
            pl.when(pl.col("n") == 3).then(None).otherwise(pl.col("id")).alias("id")
        ),
    )


# Floats that are no error (IEEE equality, a NaN or a null that names nothing): case ->
# (the prereg, as FLOATING's; how the demo bundle is changed; one cell both contestants
# write, (row id, column, policy, recomputed)). Worked out by hand from the demo bundle:
# demo/m1 lists alpha-00..alpha-07, alpha-00..02 resolved, 03..06 not, 07 null, so
# alpha_score under A (nulls as failures) is 3 of 8, 37.5; without alpha-03, 3 of 7,
# 42.857143. A single value 0.0 or -0.0 is written 0.000000 (docs/contract.md, Values).
FLOATING_PASS = {
    # the leaderboard's row id 0.0, all its instance rows -0.0: all 8 linked
    "a row id 0.0 linking rows -0.0": (
        PLAIN,
        lambda b: (
            _floating_ids(b, {**NUMBERED, "demo/m1": 0.0}),
            _edit(
                b / "instances.parquet",
                lambda df: df.with_columns(
                    pl.when(pl.col("id") == 0.0).then(-0.0).otherwise(pl.col("id")).alias("id")
                ),
            ),
        ),
        ("0.000000", "alpha_score", "A", "37.500000"),
    ),
    # the leaderboard's row id -0.0, its rows 0.0 but alpha-00 -0.0: all 8 linked (1 or
    # 7 alone would give 100.0 or 42.857143)
    "a row id -0.0 linking rows of both signs": (
        PLAIN,
        _m1_signed,
        ("0.000000", "alpha_score", "A", "37.500000"),
    ),
    # demo/m1's rows 0.0 but alpha-00 -0.0: one value
    "a single value 0.0 and -0.0": (
        PLAIN,
        _m1_models({"alpha-00": -0.0}, rest=0.0),
        ("demo/m1", "model", "-", "0.000000"),
    ),
    # demo/m1's rows all -0.0: written 0.000000, never -0.000000
    "a single value -0.0 alone": (
        PLAIN,
        _m1_models({}, rest=-0.0),
        ("demo/m1", "model", "-", "0.000000"),
    ),
    # demo/m1's rows 1.0 but alpha-00 NaN: the NaN counts as null
    "a single value NaN beside a number": (
        PLAIN,
        _m1_models({"alpha-00": math.nan}),
        ("demo/m1", "model", "-", "1.000000"),
    ),
    # keyed by n, row 3's row id (demo/m1's alpha-03, not resolved) null: no row's
    "an instance row id null": (
        KEYED,
        _instance_id_null_at_row_3,
        ("1.000000", "alpha_score", "A", "42.857143"),
    ),
}


@pytest.mark.parametrize("case", list(FLOATING_PASS))
def test_a_float_that_is_no_error_passes_every_check(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """Both contestants run it (exit 0) to the same cells, the one named as worked out
    above, and the checks before the lock pass it."""
    from audit import preflight
    from audit.kinds.arm_kind import load_checked

    options, changes, (row, column, policy, want) = FLOATING_PASS[case]
    prereg = _floating_prereg(tmp_path, "fixed" in options, "keyed" in options)
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    changes(bundle)
    cells = []
    for impl in IMPLS:
        res = run_impl(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 0, (impl, res.stderr)
        cells.append((tmp_path / f"out-{impl}" / "cells.csv").read_text(encoding="utf-8"))
    assert cells[0] == cells[1]
    got = {
        (r["row_id"], r["column"], r["policy"]): r["recomputed"]
        for r in csv.DictReader(io.StringIO(cells[0]))
    }
    assert got[row, column, policy] == want, got
    kind, doc = load_checked(str(prereg))
    rec = kind.entry("parse")(doc, str(prereg))  # as the workflow parses it, once
    preflight.check_before_lock(kind, rec, str(prereg), str(bundle))


# An integer written as an Arrow duration in seconds (docs/contract.md, Types: a plain
# INT64 in the file, read as the INT64 stored): polars reads it as milliseconds, each value
# times 1000, wrapping past 64 bits, so a stored 2**62 reads as 0 (2**62 * 1000 = 2**65 *
# 125, a multiple of 2**64), as 0 does. The demo's instance table gains a column n, the
# row's index in the file (demo/m1's twelve rows first: rows 0-11), made a duration in
# seconds by the pyarrow of impl_pyarrow's environment (tests/test_preflight_trials.py).
WRAPS = 2**62


def _with_seconds(b: Path, stored: dict[int, int]) -> None:
    """The instance table with n (row index; ``stored``: row -> the integer stored there)
    as a duration in seconds."""
    from tests.test_preflight_trials import _as_durations

    _edit(
        b / "instances.parquet",
        lambda df: df.with_columns(pl.int_range(pl.len(), dtype=pl.Int64).alias("n")),
    )
    _as_durations(b / "instances.parquet", "s", {"n": stored})
    read = pl.read_parquet(b / "instances.parquet")["n"]
    assert read[0] == read[1]  # polars reads rows 0 and 1 (0 and 2**62) alike


def _seconds_prereg(tmp: Path, key: bool) -> Path:
    """The demo prereg keyed by n alone (``key``), or with the single value model's
    source n."""
    doc = yaml.safe_load(PREREG.read_text(encoding="utf-8"))
    if key:
        doc["bundle"]["instance_key"] = ["n"]
    else:
        doc["columns"]["measured"]["model"]["source"] = "n"
    prereg = tmp / "demo.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return prereg


def _preflight(prereg: Path, bundle: Path) -> None:
    from audit import preflight
    from audit.kinds.arm_kind import load_checked

    kind, doc = load_checked(str(prereg))
    rec = kind.entry("parse")(doc, str(prereg))  # as the workflow parses it, once
    preflight.check_before_lock(kind, rec, str(prereg), str(bundle))


def test_instance_keys_stored_as_seconds_are_judged_as_stored(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """Keyed by n, rows 0 and 1 storing 0 and 2**62: distinct keys, every n distinct (row
    indexes 2.. and those two), so both contestants run it (exit 0) and the checks before
    the lock pass it. They read polars' wrapped values before: 0 twice, refused as
    duplicate_key ``instance key (0)``, a bundle both contestants accept."""
    prereg = _seconds_prereg(tmp_path, key=True)
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    _with_seconds(bundle, {1: WRAPS})
    for impl in IMPLS:
        res = run_impl(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 0, (impl, res.stderr)
    _preflight(prereg, bundle)


def test_a_single_value_stored_as_seconds_is_judged_as_stored(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """model's source n: demo/m1's rows 0-11 store 0 but row 1, 2**62: two distinct
    values (every other row's alone: one value each), ambiguous_value for demo/m1, as
    both contestants refuse it. The checks before the lock read 0 twelve times and passed
    it (locked, then refused by the contestants)."""
    prereg = _seconds_prereg(tmp_path, key=False)
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    _with_seconds(bundle, {i: 0 for i in range(12)} | {1: WRAPS})
    head = f"error[ambiguous_value]: {bundle}/instances.parquet: "
    for impl in IMPLS:  # both contestants refuse it so, each in its own words
        res = run_impl(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    from audit.errors import AuditError

    with pytest.raises(AuditError) as e:
        _preflight(prereg, bundle)
    assert (e.value.kind, e.value.path) == ("ambiguous_value", f"{bundle}/instances.parquet")
    assert e.value.detail == "'n' (for 'model') holds 2 distinct values for row id 'demo/m1'"
