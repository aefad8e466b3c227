"""A trials arm's tables, compare-runs' input and the ranks block, judged before the lock
(issue 27).

The registry table and the leaderboard of a registry arm, and the leaderboard and the
adapted trial table of a trials source, used to be judged only by the contestants after
the lock (missing_column ... bad_value), and the prereg's compare block only by
compare-runs after it (unknown_run, no_pairs, settings_differ): the arm was locked on
the bad input and its correction refused as arm_locked. Now the workflow refuses each
as it is read: one line, exit 2, nothing under results/<arm>/. The expected class is
each contestant's own on the same input (run alone: an independent reading), or
compare-runs' own line on the adapted table.

The ranks block: the schema checked only its shape, so a column the leaderboard does
not have, one whose measure is not reward_macro, an unpublished one, a policy the
prereg does not compute, or a block with no leaderboard passed the lock, and both
contestants refused it after the lock (section 17). Now each is bad_prereg naming the
key, from the lock's own checks, before any job.
"""

from __future__ import annotations

import csv
import shutil
from datetime import date
from pathlib import Path

import blake3
import polars as pl
import pytest
import yaml

from audit.adapters.base import SCHEMA
from tests.conftest import IMPLS, ROOT, impl_python, run, run_audit, run_dag

SHARED = ROOT.parent / "shared" / "bundles"
REGISTRY = SHARED / "skillsbench-registry"
TB = SHARED / "terminal-bench-sample"


def _contestant(impl: str, prereg: Path, bundle: Path, out: Path):
    return run(
        [str(impl_python(impl)), "-m", f"impl_{impl}", "trials", "--prereg", str(prereg),
         "--bundle", str(bundle), "--out", str(out), "--no-draws"]
    )  # fmt: skip


def _refused_before_any_job(tmp: Path, arm: str, prereg: Path, bundle: Path, head: str) -> str:
    """The workflow on (prereg, bundle): exit 2, one error line starting with ``head``,
    nothing under results/<arm>/. The line."""
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(
        tmp, "--config", f"arm={arm}", f"prereg={prereg}", f"prereg_blake3={digest}",
        f"bundle={bundle}",
    )  # fmt: skip
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and lines[0].startswith(head), p.stderr[-3000:]
    assert not (tmp / "results" / arm).exists()
    return lines[0]


# --- a registry arm: the shipped SkillsBench registry, one fault each ----------------


def _drop_pass_count(b: Path) -> tuple[str, str]:
    pl.read_parquet(b / "registry.parquet").drop("passCount").write_parquet(b / "registry.parquet")
    return "missing_column", "registry.parquet"


def _unclassified(b: Path) -> tuple[str, str]:
    lb = pl.read_parquet(b / "leaderboard.parquet").with_columns(pl.lit("x").alias("note"))
    lb.write_parquet(b / "leaderboard.parquet")
    return "undeclared_column", "leaderboard.parquet"


def _twice(b: Path) -> tuple[str, str]:
    """The leaderboard names two columns score: a copy written as scor#, renamed in the
    footer's bytes (no dataframe library writes one)."""
    f = b / "leaderboard.parquet"
    lb = pl.read_parquet(f)
    lb.with_columns(pl.col("score").alias("scor#")).write_parquet(f, statistics=False)
    data = f.read_bytes()
    assert data.count(b"scor#") >= 1
    f.write_bytes(data.replace(b"scor#", b"score"))
    return "duplicate_column", "leaderboard.parquet"


def _trials_as_float(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet").with_columns(pl.col("trials").cast(pl.Float64))
    reg.write_parquet(b / "registry.parquet")
    return "bad_type", "registry.parquet"


def _null_task(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet")
    reg = reg.with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("task")).alias("task")
    )
    reg.write_parquet(b / "registry.parquet")
    return "bad_key", "registry.parquet"


def _row_twice(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet")
    pl.concat([reg, reg.slice(3, 1)]).write_parquet(b / "registry.parquet")
    return "duplicate_key", "registry.parquet"


def _tolerance_row_gone(b: Path) -> tuple[str, str]:
    """The row the prereg's row_tolerances name (OpenHands (DeepSeek V4 Flash)|No Skills)
    renamed on the leaderboard: a row_tolerances key that is no row id."""
    lb = pl.read_parquet(b / "leaderboard.parquet")
    old = "OpenHands (DeepSeek V4 Flash)"
    assert old in lb["model"].to_list()
    lb.with_columns(pl.col("model").replace(old, "OpenHands (DeepSeek V4)")).write_parquet(
        b / "leaderboard.parquet"
    )
    return "unknown_row", "leaderboard.parquet"


def _more_passes_than_trials(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet")
    reg = reg.with_columns(
        pl.when(pl.int_range(pl.len()) == 7)
        .then(pl.col("trials") + 1)
        .otherwise(pl.col("passCount"))
        .alias("passCount")
    )
    reg.write_parquet(b / "registry.parquet")
    return "bad_value", "registry.parquet"


# Columns of a type polars' schema does not name as one of the contract's kinds: the
# preflight stopped judging at them (a date, a decimal, the null type, a categorical) and
# both contestants refused the table after the lock. Each kind is the contract's
# (docs/contract.md, Types: DATE and DECIMAL are kind other, the null type kind null, a
# categorical a STRING in the file); the class each contestant's own (run alone below).


def _task_categorical_twice(b: Path) -> tuple[str, str]:
    """A registry row given twice, its task column categorical: a string to both
    contestants, so the repeat is duplicate_key."""
    reg = pl.read_parquet(b / "registry.parquet")
    reg = pl.concat([reg, reg.slice(3, 1)]).with_columns(pl.col("task").cast(pl.Categorical))
    reg.write_parquet(b / "registry.parquet")
    return "duplicate_key", "registry.parquet"


def _task_as_date(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet")
    reg.with_columns(pl.lit(date(2026, 1, 1)).alias("task")).write_parquet(b / "registry.parquet")
    return "bad_type", "registry.parquet"


def _trials_as_decimal(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet")
    reg = reg.with_columns(pl.col("trials").cast(pl.Decimal(10, 0)))
    reg.write_parquet(b / "registry.parquet")
    return "bad_type", "registry.parquet"


def _score_of_the_null_type(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet").with_columns(pl.lit(None).alias("score"))
    reg.write_parquet(b / "registry.parquet")
    return "bad_type", "registry.parquet"


def _leaderboard_score_as_decimal(b: Path) -> tuple[str, str]:
    lb = pl.read_parquet(b / "leaderboard.parquet")
    lb = lb.with_columns(pl.col("score").cast(pl.Decimal(10, 3)))
    lb.write_parquet(b / "leaderboard.parquet")
    return "bad_type", "leaderboard.parquet"


def _leaderboard_key_of_the_null_type(b: Path) -> tuple[str, str]:
    lb = pl.read_parquet(b / "leaderboard.parquet").with_columns(pl.lit(None).alias("model"))
    lb.write_parquet(b / "leaderboard.parquet")
    return "bad_type", "leaderboard.parquet"


# Two types Arrow reads otherwise than the file's own schema (issue 27). The contract's
# Types table (docs/contract.md, kept by the trials contract), worked by hand:
#   FLOAT16 (polars' Float16)            -> kind other   -> bad_type wherever a number is read
#   Arrow duration (a plain INT64 in the -> kind integer -> read as the INT64 stored: a count
#   file, polars' Duration)                                 is fine, a string column bad_type
# impl_pyarrow read Arrow's types (a half float floating, a duration bad_type) and the
# preflight left both to the contestants; now both contestants and the preflight follow
# the table.


def _score_as_half_float(b: Path) -> tuple[str, str]:
    reg = pl.read_parquet(b / "registry.parquet").with_columns(pl.col("score").cast(pl.Float16))
    reg.write_parquet(b / "registry.parquet")
    return "bad_type", "registry.parquet"


def _leaderboard_score_as_half_float(b: Path) -> tuple[str, str]:
    lb = pl.read_parquet(b / "leaderboard.parquet")
    lb.with_columns(pl.col("score").cast(pl.Float16)).write_parquet(b / "leaderboard.parquet")
    return "bad_type", "leaderboard.parquet"


def _task_as_duration(b: Path) -> tuple[str, str]:
    """An integer where a string is read."""
    reg = pl.read_parquet(b / "registry.parquet")
    reg = reg.with_columns(pl.int_range(pl.len()).cast(pl.Duration("us")).alias("task"))
    reg.write_parquet(b / "registry.parquet")
    return "bad_type", "registry.parquet"


def _more_passes_than_trials_of_durations(b: Path) -> tuple[str, str]:
    """trials and passCount durations (integers): row 7's passCount one above its trials
    is bad_value, as for plain integers, not bad_type."""
    _more_passes_than_trials(b)
    reg = pl.read_parquet(b / "registry.parquet").with_columns(
        pl.col("trials", "passCount").cast(pl.Duration("us"))
    )
    reg.write_parquet(b / "registry.parquet")
    return "bad_value", "registry.parquet"


# An Arrow duration in seconds (issue 27): polars reads it as milliseconds, each stored
# value times 1000 (wrapping past the 64-bit range), and cannot tell it from one stored in
# milliseconds; the preflight left such a column to the contestants, after the lock. Now it
# reads the integers the file stores (audit/bundles/parquet_stored.py). polars writes no
# duration in seconds: these tables are written by the pyarrow of impl_pyarrow's environment.
_AS_DURATIONS = """
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
path, unit, edits = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
table = pq.read_table(path).replace_schema_metadata(None)
for name, rows in edits.items():
    values = table.column(name).to_pylist()
    for row, value in rows.items():
        values[int(row)] = value
    column = pa.array(values, pa.int64()).cast(pa.duration(unit))
    table = table.set_column(table.column_names.index(name), name, column)
pq.write_table(table, path)
print(table.schema.field(next(iter(edits))).type)
"""


def _as_durations(path: Path, unit: str, edits: dict[str, dict[int, int | None]]) -> None:
    """Write the columns ``edits`` names as Arrow durations of ``unit`` holding the file's
    integers, each with its rows' values replaced (row -> stored integer). The shipped
    table's pandas metadata is dropped: it calls the counts int64 (no nulls), which
    fastparquet trusts, so that impl_pandas finds a null there unreadable, not bad_value."""
    import json

    res = run([str(impl_python("pyarrow")), "-c", _AS_DURATIONS, str(path), unit,
               json.dumps(edits)])  # fmt: skip
    assert res.code == 0 and res.stdout.strip() == f"duration[{unit}]", res.stderr


def _more_passes_than_trials_of_seconds(b: Path) -> tuple[str, str]:
    """trials and passCount durations in seconds: row 7's passCount one above its trials
    (3, as the shipped table holds: 4 written) is bad_value, as for plain integers."""
    trials = pl.read_parquet(b / "registry.parquet")["trials"].to_list()
    assert trials[7] == 3
    _as_durations(b / "registry.parquet", "s", {"trials": {}, "passCount": {7: 4}})
    return "bad_value", "registry.parquet"


def _null_trials_of_seconds(b: Path) -> tuple[str, str]:
    """trials durations in seconds, row 7's null: bad_value (the trials rule's null)."""
    _as_durations(b / "registry.parquet", "s", {"trials": {7: None}})
    return "bad_value", "registry.parquet"


REGISTRY_CASES = {
    "registry column missing": _drop_pass_count,
    "leaderboard column unclassified": _unclassified,
    "leaderboard column twice": _twice,
    "registry trials not integer": _trials_as_float,
    "registry task null": _null_task,
    "registry row twice": _row_twice,
    "row_tolerances row not on the leaderboard": _tolerance_row_gone,
    "registry passCount above trials": _more_passes_than_trials,
    "registry row twice, task categorical": _task_categorical_twice,
    "registry task a date": _task_as_date,
    "registry trials a decimal": _trials_as_decimal,
    "registry score of the null type": _score_of_the_null_type,
    "leaderboard score a decimal": _leaderboard_score_as_decimal,
    "leaderboard row key of the null type": _leaderboard_key_of_the_null_type,
    "registry score a half float": _score_as_half_float,
    "leaderboard score a half float": _leaderboard_score_as_half_float,
    "registry task a duration": _task_as_duration,
    "registry passCount above trials, both durations": _more_passes_than_trials_of_durations,
    "registry passCount above trials, both in seconds": _more_passes_than_trials_of_seconds,
    "registry trials null, in seconds": _null_trials_of_seconds,
}


@pytest.mark.parametrize("case", list(REGISTRY_CASES))
def test_a_registry_table_problem_is_refused_before_any_job(
    case, impl_envs, tmp_path: Path
) -> None:
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    bundle = tmp_path / "bundle"
    shutil.copytree(REGISTRY, bundle)
    bundle.chmod(0o755)  # the shared copy is read-only
    for f in bundle.iterdir():
        f.chmod(0o644)
    kind, file = REGISTRY_CASES[case](bundle)
    prereg = ROOT / "prereg" / "skillsbench-registry.yaml"
    head = f"error[{kind}]: {bundle}/{file}: "
    for impl in IMPLS:  # each contestant refuses it so, in its own words
        res = _contestant(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    line = _refused_before_any_job(tmp_path, "skillsbench-registry", prereg, bundle, head)
    assert line.endswith("nothing was written")


def test_counts_written_as_durations_are_read_as_the_integers_stored(
    impl_envs, tmp_path: Path
) -> None:
    """The registry's trials, passCount and perfectCount written as Arrow durations in
    microseconds (the same INT64s in the file, docs/contract.md Types: integers): each
    contestant alone writes the very files it writes for the shipped registry, and the
    workflow plans the arm (a dry run: the preflight passes it). impl_pyarrow refused it
    as bad_type before (Arrow's duration type)."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    bundle = tmp_path / "bundle"
    shutil.copytree(REGISTRY, bundle)
    bundle.chmod(0o755)
    for f in bundle.iterdir():
        f.chmod(0o644)
    counts = ("trials", "passCount", "perfectCount")
    reg = pl.read_parquet(bundle / "registry.parquet")
    reg.with_columns(pl.col(*counts).cast(pl.Duration("us"))).write_parquet(
        bundle / "registry.parquet"
    )
    assert all(
        type(t).__name__ == "Duration"
        for n, t in pl.read_parquet_schema(bundle / "registry.parquet").items()
        if n in counts
    )
    prereg = ROOT / "prereg" / "skillsbench-registry.yaml"
    for impl in IMPLS:
        want = _contestant(impl, prereg, REGISTRY, tmp_path / f"shipped-{impl}")
        got = _contestant(impl, prereg, bundle, tmp_path / f"durations-{impl}")
        assert want.code == 0 and got.code == 0, (impl, got.stderr)
        names = sorted(p.name for p in (tmp_path / f"shipped-{impl}").iterdir())
        assert names == sorted(p.name for p in (tmp_path / f"durations-{impl}").iterdir())
        for name in names:
            a = (tmp_path / f"shipped-{impl}" / name).read_bytes()
            assert a == (tmp_path / f"durations-{impl}" / name).read_bytes(), (impl, name)
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(tmp_path, "-n", "--config", "arm=skillsbench-durations", f"prereg={prereg}",
                f"prereg_blake3={digest}", f"bundle={bundle}")  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert not (tmp_path / "results" / "skillsbench-durations").exists()


def _registry_copy(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    shutil.copytree(REGISTRY, bundle)
    bundle.chmod(0o755)
    for f in bundle.iterdir():
        f.chmod(0o644)
    return bundle


def _plans(tmp_path: Path, prereg: Path, bundle: Path, arm: str) -> None:
    """The workflow plans the arm (a dry run): the preflight passes it, nothing written."""
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(tmp_path, "-n", "--config", f"arm={arm}", f"prereg={prereg}",
                f"prereg_blake3={digest}", f"bundle={bundle}")  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert not (tmp_path / "results" / arm).exists()


@pytest.mark.parametrize("unit", ["s", "ms", "ns"])
def test_counts_written_as_durations_of_any_unit_are_judged_as_stored(
    unit, impl_envs, tmp_path: Path
) -> None:
    """The registry's trials, passCount and perfectCount written by pyarrow as Arrow
    durations of ``unit`` holding the shipped integers: the preflight reads each column
    as those integers (polars alone reads seconds as milliseconds, times 1000; the
    preflight left a column it read in milliseconds, of either unit, unjudged), each
    contestant writes the very files it writes for the shipped registry, and the workflow
    plans the arm."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    from audit.trials import preflight_tables

    bundle = _registry_copy(tmp_path)
    counts = ("trials", "passCount", "perfectCount")
    _as_durations(bundle / "registry.parquet", unit, {c: {} for c in counts})
    shipped = pl.read_parquet(REGISTRY / "registry.parquet")
    table = preflight_tables.parquet_table(str(bundle / "registry.parquet"), "registry")
    for c in counts:
        assert shipped[c].dtype == pl.Int64
        assert table.values(c) == shipped[c].to_list(), c
    prereg = ROOT / "prereg" / "skillsbench-registry.yaml"
    for impl in IMPLS:
        want = _contestant(impl, prereg, REGISTRY, tmp_path / f"shipped-{impl}")
        got = _contestant(impl, prereg, bundle, tmp_path / f"{unit}-{impl}")
        assert want.code == 0 and got.code == 0, (impl, got.stderr)
        names = sorted(p.name for p in (tmp_path / f"shipped-{impl}").iterdir())
        assert names == sorted(p.name for p in (tmp_path / f"{unit}-{impl}").iterdir())
        for name in names:
            a = (tmp_path / f"shipped-{impl}" / name).read_bytes()
            assert a == (tmp_path / f"{unit}-{impl}" / name).read_bytes(), (impl, name)
    _plans(tmp_path, prereg, bundle, f"skillsbench-{unit}")


def test_seconds_past_the_wrap_are_read_as_stored_and_pass(impl_envs, tmp_path: Path) -> None:
    """Row 7's trials (3 shipped) written as 2**62 seconds: polars reads it as
    2**62 * 1000 = 125 * 2**65, which wraps to 0 in 64 bits (by hand: 2**65 is a multiple
    of 2**64), the very value a stored 0 reads as; undoing polars' conversion (dividing by
    1000) would judge trials 0, bad_value, where both contestants read 2**62 (>= the row's
    passCount 3) and accept the table, in the same files. The preflight reads 2**62 and
    passes the arm; before, it left the column unjudged."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    from audit.trials import preflight_tables

    bundle = _registry_copy(tmp_path)
    _as_durations(bundle / "registry.parquet", "s", {"trials": {7: 2**62}})
    assert pl.read_parquet(bundle / "registry.parquet")["trials"].cast(pl.Int64)[7] == 0
    table = preflight_tables.parquet_table(str(bundle / "registry.parquet"), "registry")
    trials = table.values("trials")
    assert trials[7] == 2**62 and trials[:7] == [3] * 7
    assert table.values("passCount")[7] == 3
    prereg = ROOT / "prereg" / "skillsbench-registry.yaml"
    outs = []
    for impl in IMPLS:
        got = _contestant(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert got.code == 0, (impl, got.stderr)
        outs.append({p.name: p.read_bytes() for p in (tmp_path / f"out-{impl}").iterdir()})
    assert outs[0] == outs[1]
    assert any(b"4611686018427387904" in v for v in outs[0].values())  # 2**62, as stored
    _plans(tmp_path, prereg, bundle, "skillsbench-wrap")


def test_a_registry_whose_arrow_schema_does_not_parse_is_refused_by_the_lock(
    tmp_path: Path,
) -> None:
    """The shipped registry with the base64 of its ``ARROW:schema`` (the footer's one
    key-value pair of that key, by hand: the key's bytes, then Thrift's header of
    KeyValue field 2, a binary, 0x18, then its length as a varint) overwritten with as
    many ``Q``s: valid base64 of no Arrow message. polars reads no column of it, and
    the controls' choice of targets before the lock (controls/before_lock.py) raised
    polars' error from the workflow's start (a traceback, exit 1). Now that choice
    leaves the table to the lock, which refuses it: one line, exit 2, no lock nor
    events."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    bundle = _registry_copy(tmp_path)
    data = bytearray((bundle / "registry.parquet").read_bytes())
    assert data.count(b"ARROW:schema") == 1
    at = data.index(b"ARROW:schema") + len(b"ARROW:schema")
    assert data[at] == 0x18
    length, shift, at = 0, 0, at + 1
    while True:
        byte = data[at]
        at += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    data[at : at + length] = b"Q" * length
    (bundle / "registry.parquet").write_bytes(bytes(data))
    with pytest.raises(pl.exceptions.ComputeError):
        pl.read_parquet(bundle / "registry.parquet", columns=["task"])
    prereg = ROOT / "prereg" / "skillsbench-registry.yaml"
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(tmp_path, "--config", "arm=skillsbench-schema", f"prereg={prereg}",
                f"prereg_blake3={digest}", f"bundle={bundle}")  # fmt: skip
    lines = {x for x in p.stderr.splitlines() if x.startswith("error[")}
    assert p.returncode == 2 and len(lines) == 1, p.stderr[-3000:]
    assert lines.pop().startswith(f"error[unreadable]: {bundle}/registry.parquet: ")
    arm = tmp_path / "results" / "skillsbench-schema"
    assert not (arm / "lock").exists() and not (arm / "events").exists()


def test_a_categorical_key_and_a_date_label_pass_preflight(tmp_path: Path) -> None:
    """The look-alikes of the cases above that are not errors: a categorical task (a
    STRING in the file) and a no_antecedent label that is a date (a label is never read)
    are planned (a dry run), nothing written."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    bundle = tmp_path / "bundle"
    shutil.copytree(REGISTRY, bundle)
    bundle.chmod(0o755)
    for f in bundle.iterdir():
        f.chmod(0o644)
    reg = pl.read_parquet(bundle / "registry.parquet")
    reg.with_columns(pl.col("task").cast(pl.Categorical)).write_parquet(bundle / "registry.parquet")
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    lb.with_columns(pl.lit(date(2026, 1, 1)).alias("source")).write_parquet(
        bundle / "leaderboard.parquet"
    )
    prereg = ROOT / "prereg" / "skillsbench-registry.yaml"
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(tmp_path, "-n", "--config", "arm=skillsbench-lookalike", f"prereg={prereg}",
                f"prereg_blake3={digest}", f"bundle={bundle}")  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert not (tmp_path / "results" / "skillsbench-lookalike").exists()


# --- a trials source: a CSV leaderboard beside Terminal-Bench runs ------------------


def test_a_csv_leaderboard_field_of_another_type_is_refused_before_any_job(
    impl_envs, tmp_path: Path
) -> None:
    """Terminal-Bench's leaderboard.csv with an accuracy that is not a decimal: bad_type,
    as both contestants say it of the copy they read (the adapter's folder)."""
    if not (TB / "leaderboard.csv").is_file():
        pytest.skip("Terminal-Bench bundle not present")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "results").symlink_to(TB / "results")
    text = (TB / "leaderboard.csv").read_text(encoding="utf-8")
    assert ",0.4125," in text
    (bundle / "leaderboard.csv").write_text(text.replace(",0.4125,", ",41%,"), encoding="utf-8")
    assembled = tmp_path / "assembled"
    res = run_audit(
        "adapt-trials", "--jobs", TB / "results", "--format", "tb-run-v1", "--duplicates",
        "once", "--min-tries", "5", "--out", assembled,
    )  # fmt: skip
    assert res.code == 0, res.stderr
    shutil.copyfile(bundle / "leaderboard.csv", assembled / "leaderboard.csv")
    prereg = ROOT / "prereg" / "terminal-bench-sample.yaml"
    for impl in IMPLS:
        r = _contestant(impl, prereg, assembled, tmp_path / f"out-{impl}")
        assert r.code == 2 and r.stderr.startswith(
            f"error[bad_type]: {assembled}/leaderboard.csv"
        ), r.stderr
    head = f"error[bad_type]: {bundle}/leaderboard.csv: "
    line = _refused_before_any_job(tmp_path, "tb-bad", prereg, bundle, head)
    assert "'accuracy'" in line and "'41%'" in line


def _registry_csv(tmp: Path, name: str, tasks: str) -> Path:
    """The SkillsBench registry bundle, its leaderboard written as CSV with row 1's
    `tasks` field (declared integer) replaced by ``tasks``."""
    bundle = tmp / name
    bundle.mkdir()
    shutil.copyfile(REGISTRY / "registry.parquet", bundle / "registry.parquet")
    lb = pl.read_parquet(REGISTRY / "leaderboard.parquet")
    assert lb.columns == ["model", "condition", "score", "ci95", "tasks", "source"]
    rows = [["" if v is None else repr(v) if isinstance(v, float) else str(v) for v in r]
            for r in lb.iter_rows()]  # fmt: skip
    rows[1][4] = tasks
    with (bundle / "leaderboard.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([lb.columns, *rows])
    return bundle


def test_a_csv_integer_beyond_int64_is_refused_before_any_job(impl_envs, tmp_path: Path):
    """The contract's integer is a signed 64-bit one (section 4.3): a `tasks` field of
    99999999999999999999 (20 digits, above 2**63 - 1 = 9223372036854775807, 19 digits)
    passed preflight, the lock and impl_pandas (a Python int), and impl_pyarrow's cast
    to int64 raised ArrowInvalid (exit 1, the arm locked). Now it is bad_type to both
    contestants and before any job; 2**63 - 1 itself is read by both (exit 0)."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip(f"bundle not present at {REGISTRY}")
    text = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
    old = "  table: leaderboard.parquet\n"
    assert text.count(old) == 1
    types = "{model: string, condition: string, score: decimal, ci95: decimal, tasks: integer, source: string}"
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(old, f"  table: leaderboard.csv\n  types: {types}\n"))
    top = _registry_csv(tmp_path, "top", str(2**63 - 1))
    bundle = _registry_csv(tmp_path, "bundle", "99999999999999999999")
    for impl in IMPLS:
        r = _contestant(impl, prereg, top, tmp_path / f"top-{impl}")
        assert r.code == 0, r.stderr
        r = _contestant(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert r.code == 2 and r.stderr.startswith(
            f"error[bad_type]: {bundle}/leaderboard.csv: column 'tasks' is declared integer; "
            "row 1 holds '99999999999999999999'"
        ), r.stderr
    head = f"error[bad_type]: {bundle}/leaderboard.csv: "
    line = _refused_before_any_job(tmp_path, "registry-bigint", prereg, bundle, head)
    assert "'tasks'" in line and "'99999999999999999999'" in line


@pytest.mark.parametrize("field", ["\u00b2", "-\u00b2", "--5", "\u0665"])
def test_a_csv_integer_field_not_of_ascii_digits_is_bad_type_to_both(impl_envs, tmp_path, field):
    """A field the contract's integer pattern (-?[0-9]+, ASCII digits) refuses is bad_type
    to both contestants, whatever Python's str.isdigit says of it: a superscript two
    (U+00B2) and an Arabic-Indic five (U+0665) are digits to isdigit, and int() refuses
    the first; impl_pandas' int64 range check (08f0530) ran on every field and raised
    ValueError on the superscript and on a doubled sign (a traceback, exit 1)."""
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip(f"bundle not present at {REGISTRY}")
    text = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
    old = "  table: leaderboard.parquet\n"
    types = "{model: string, condition: string, score: decimal, ci95: decimal, tasks: integer, source: string}"
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(old, f"  table: leaderboard.csv\n  types: {types}\n"))
    bundle = _registry_csv(tmp_path, "bundle", field)
    for impl in IMPLS:
        r = _contestant(impl, prereg, bundle, tmp_path / f"out-{impl}")
        assert r.code == 2 and r.stderr.startswith(
            f"error[bad_type]: {bundle}/leaderboard.csv: column 'tasks' is declared integer; "
            f"row 1 holds {field!r}"
        ), (impl, r.stderr)


# --- a trials source in the trial-table-v1 format: any table can be built ------------


def _trial_rows(rows: list[dict]) -> pl.DataFrame:
    full = [{name: r.get(name) for name in SCHEMA} for r in rows]
    return pl.DataFrame(full, schema=SCHEMA)


def _good_rows() -> list[dict]:
    """Two runs, A and B, on tasks t1 and t2, one scored trial each; the same model."""
    out = []
    for run_name, rewards in (("A", (1.0, 0.0)), ("B", (0.0, 0.0))):
        for i, (task, reward) in enumerate(zip(("t1", "t2"), rewards, strict=True)):
            out.append(
                {"run": run_name, "task": task, "trial_id": f"{run_name}{i}", "copy": 0,
                 "status": "scored", "reward": reward, "model": "m", "verifier_broken": False,
                 "agent_ran": True, "exception": False,
                 "started_at": f"2026-01-01T00:00:0{i}.000000Z"}
            )  # fmt: skip
    return out


def _table_arm(tmp: Path, rows: list[dict], compare: dict | None = None) -> tuple[Path, Path]:
    """(prereg, bundle) of a trial-table-v1 arm: the bundle folder holding trials.parquet
    (jobs: "."), the prereg BenchFlow's with this source, no controls, and ``compare``."""
    bundle = tmp / "bundle"
    bundle.mkdir()
    _trial_rows(rows).write_parquet(bundle / "trials.parquet")
    doc = yaml.safe_load((ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"))
    doc["name"] = "table-arm"
    doc["source"] = {"kind": "trials", "format": "trial-table-v1", "jobs": ".",
                     "table": "trials.parquet"}  # fmt: skip
    doc["controls"] = {}
    doc["compare"] = compare
    prereg = tmp / "table-arm.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return prereg, bundle


def _status_unknown(rows: list[dict]) -> list[dict]:
    rows[1]["status"] = "timeout"
    return rows


def _trial_id_null(rows: list[dict]) -> list[dict]:
    rows[2]["trial_id"] = None
    return rows


def _trial_twice(rows: list[dict]) -> list[dict]:
    return [*rows, dict(rows[0])]


TABLE_CASES = {
    "status not one of the three": (_status_unknown, "bad_value"),
    "trial_id null": (_trial_id_null, "bad_key"),
    "one trial twice": (_trial_twice, "duplicate_key"),
}


@pytest.mark.parametrize("case", list(TABLE_CASES))
def test_an_adapted_trial_table_problem_is_refused_before_any_job(
    case, impl_envs, tmp_path: Path
) -> None:
    """The adapter passes such a table through (trial-table-v1 checks columns and types,
    not values); both contestants then refused the adapter's copy after the lock."""
    change, kind = TABLE_CASES[case]
    prereg, bundle = _table_arm(tmp_path, change(_good_rows()))
    assembled = tmp_path / "assembled"
    res = run_audit("adapt-trials", "--jobs", bundle, "--format", "trial-table-v1",
                    "--out", assembled)  # fmt: skip
    assert res.code == 0, res.stderr
    for impl in IMPLS:
        r = _contestant(impl, prereg, assembled, tmp_path / f"out-{impl}")
        assert r.code == 2 and r.stderr.startswith(f"error[{kind}]: "), (impl, r.stderr)
    head = f"error[{kind}]: {bundle}/.: "
    _refused_before_any_job(tmp_path, "table-arm", prereg, bundle, head)


def test_the_adapters_own_refusal_is_made_before_any_job(tmp_path: Path) -> None:
    """A trial table of no row: the adapter's no_trials (section 2.7), which its job raised
    once the run had begun (its log under results/<arm>/), now the same line at preflight."""
    prereg, bundle = _table_arm(tmp_path, [], None)
    job = run_audit("adapt-trials", "--jobs", f"{bundle}/.", "--format", "trial-table-v1",
                    "--out", tmp_path / "assembled")  # fmt: skip
    assert job.code == 2 and job.stderr.startswith("error[no_trials]: "), job.stderr
    line = _refused_before_any_job(tmp_path, "table-arm", prereg, bundle, "error[no_trials]: ")
    assert line == job.stderr.strip()


COMPARE = {"a": "A", "b": "B", "denominator": "attempted", "k": [1], "draws": 100,
           "under_study": []}  # fmt: skip


def _no_run_c(rows: list[dict], compare: dict) -> tuple[list[dict], dict]:
    return rows, {**compare, "b": "C"}


def _no_shared_task(rows: list[dict], compare: dict) -> tuple[list[dict], dict]:
    for r in rows:
        if r["run"] == "B":
            r["task"] = "u" + r["task"]
    return rows, compare


def _other_model(rows: list[dict], compare: dict) -> tuple[list[dict], dict]:
    for r in rows:
        if r["run"] == "B":
            r["model"] = "m2"
    return rows, compare


COMPARE_CASES = {
    "a run the table does not hold": (_no_run_c, "unknown_run"),
    "no task in both runs": (_no_shared_task, "no_pairs"),
    "a setting differs, not under study": (_other_model, "settings_differ"),
}


@pytest.mark.parametrize("case", list(COMPARE_CASES))
def test_a_compare_runs_refusal_is_made_before_any_job(case, tmp_path: Path) -> None:
    """The prereg's compare block against the adapted table: compare-runs' own line
    (run here on the adapter's table, as its job runs it), before any job."""
    change, kind = COMPARE_CASES[case]
    rows, compare = change(_good_rows(), dict(COMPARE))
    prereg, bundle = _table_arm(tmp_path, rows, compare)
    assembled = tmp_path / "assembled"
    res = run_audit("adapt-trials", "--jobs", bundle, "--format", "trial-table-v1",
                    "--out", assembled)  # fmt: skip
    assert res.code == 0, res.stderr
    table = assembled / "trials.parquet"
    job = run_audit("compare-runs", compare["a"], compare["b"], "--denominator", "attempted",
                    "--k", "1", "--seed", "20260801", "--draws", "100", "--trials", table)  # fmt: skip
    assert job.code == 2 and job.stderr.startswith(f"error[{kind}]: "), job.stderr
    want = job.stderr.strip().replace(str(table), f"{bundle}/.")
    line = _refused_before_any_job(tmp_path, "table-arm", prereg, bundle, f"error[{kind}]: ")
    assert line == want


def test_a_valid_table_arm_passes_preflight(tmp_path: Path) -> None:
    """The same arm without a fault: preflight refuses nothing (a dry run plans the jobs)."""
    prereg, bundle = _table_arm(tmp_path, _good_rows(), dict(COMPARE))
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(tmp_path, "-n", "--config", "arm=table-arm", f"prereg={prereg}",
                f"prereg_blake3={digest}", f"bundle={bundle}")  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert not (tmp_path / "results" / "table-arm").exists()


# --- the ranks block against the leaderboard (a bug found in review) ----------------


def _with_ranks(tmp: Path, shipped: str, ranks: str) -> Path:
    text = (ROOT / "prereg" / f"{shipped}.yaml").read_text(encoding="utf-8")
    assert "\nseed:" in text
    p = tmp / f"{shipped}-ranks.yaml"
    p.write_text(text.replace("\nseed:", f"\nranks: {ranks}\nseed:", 1), encoding="utf-8")
    return p


RANKS = "alpha: 0.05, correction: holm, seed: 1, draws: 5"
RANKS_CASES = {
    # (shipped prereg, ranks block, what the line names); each by section 17's rule
    "a column the leaderboard does not have": (
        "skillsbench-registry", f"{{columns: [nope], policy: E, {RANKS}}}", "ranks/columns: 'nope'"),
    "a column whose measure is not reward_macro": (
        "skillsbench-registry", f"{{columns: [tasks], policy: E, {RANKS}}}", "ranks/columns: 'tasks'"),
    "an unpublished column": (
        "terminal-bench-sample", f"{{columns: [pass_at_1], policy: scored, {RANKS}}}",
        "ranks/columns: 'pass_at_1'"),
    "a policy the prereg does not compute": (
        "skillsbench-registry", f"{{columns: [score], policy: attempted, {RANKS}}}",
        "ranks/policy: 'attempted'"),
    "no leaderboard": (
        "benchflow-sample", f"{{columns: [score], policy: first3, {RANKS}}}", "leaderboard: null"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(RANKS_CASES))
def test_a_ranks_block_naming_what_is_not_there_is_bad_prereg(case, tmp_path: Path) -> None:
    """audit/trials/prereg.py checked the ranks block's shape only: the lock accepted a
    column or policy the leaderboard does not have, and the contestants refused it after
    the lock."""
    from audit.errors import AuditError
    from audit.trials.prereg import load

    shipped, ranks, named = RANKS_CASES[case]
    prereg = _with_ranks(tmp_path, shipped, ranks)
    with pytest.raises(AuditError) as e:
        load(prereg)
    assert e.value.kind == "bad_prereg" and named in e.value.detail, e.value
    # a block naming what is there still loads
    (tmp_path / "ok").mkdir()
    ok = _with_ranks(tmp_path / "ok", "skillsbench-registry", f"{{columns: [score], policy: E, {RANKS}}}")  # fmt: skip
    assert load(ok)["ranks"]["columns"] == ["score"]


def test_a_ranks_column_not_on_the_leaderboard_is_refused_before_any_job(
    impl_envs, tmp_path: Path
) -> None:
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip("SkillsBench bundle not present")
    prereg = _with_ranks(
        tmp_path, "skillsbench-registry", f"{{columns: [nope], policy: E, {RANKS}}}"
    )
    for impl in IMPLS:  # both contestants refused it, after the lock
        r = _contestant(impl, prereg, REGISTRY, tmp_path / f"out-{impl}")
        assert r.code == 2 and r.stderr.startswith(f"error[bad_prereg]: {prereg}: "), r.stderr
        assert "nope" in r.stderr
    line = _refused_before_any_job(
        tmp_path, "skillsbench-ranks", prereg, REGISTRY, f"error[bad_prereg]: {prereg}: "
    )
    assert "ranks/columns: 'nope'" in line


@pytest.mark.parametrize(
    "arm", ["benchflow-sample", "skillsbench-registry", "terminal-bench-sample"]
)
def test_the_shipped_trials_arms_pass_preflight(arm: str, tmp_path: Path) -> None:
    """No false refusal: each shipped trials arm, its config as shipped, is planned (a dry
    run reads the workflow, so every check before the lock runs) and nothing is written."""
    config = ROOT / "config" / f"{arm}.yaml"
    bundle = SHARED / yaml.safe_load(config.read_text(encoding="utf-8"))["bundle"].split("/")[-1]
    if not bundle.is_dir():
        pytest.skip(f"{bundle.name} not present")
    p = run_dag(tmp_path, "-n", "--configfile", str(config), "--config", f"bundle={bundle}",
                f"prereg={ROOT / 'prereg' / f'{arm}.yaml'}")  # fmt: skip
    assert p.returncode == 0, p.stderr[-3000:]
    assert not (tmp_path / "results" / arm).exists()


# --- a jobs folder past preflight's bound: the lock judges the adapter's table --------


def _lock_run(tmp: Path, prereg: Path, bundle: Path) -> tuple[int, list[str]]:
    """The workflow asked for the lock alone: its exit status and its error lines."""
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    p = run_dag(
        tmp, "results/table-arm/lock/lock.json", "--config", "arm=table-arm",
        f"prereg={prereg}", f"prereg_blake3={digest}", f"bundle={bundle}",
    )  # fmt: skip
    return p.returncode, [x for x in p.stderr.splitlines() if x.startswith("error[")]


def _fix_status(rows: list[dict], compare: dict) -> tuple[list[dict], dict]:
    return _status_unknown(rows), compare


PAST_BOUND = {
    # the table corrected in place: the folder's own time unchanged, the adapter runs again
    "status not one of the three": (_fix_status, "bad_value", "table"),
    # the prereg corrected: another prereg, the arm still unlocked
    "a run the table does not hold": (_no_run_c, "unknown_run", "prereg"),
}


@pytest.mark.parametrize("case", list(PAST_BOUND))
def test_a_table_past_the_bound_is_refused_by_the_lock_and_its_correction_locks(
    case, tmp_path: Path
) -> None:
    """A jobs folder past ADAPT_BOUND (padded with a file of zeros: the bound sums every
    regular file's size, as the lock hashes them) is not adapted at preflight, so its
    trial table and compare block were judged only after the lock (the arm locked on
    them). Now the lock judges the adapter job's table before it writes anything: the
    line is the one preflight gives for the same folder within the bound (the first run
    here, before the padding), exit 2, no lock; the corrected input then locks the arm."""
    from audit.trials.preflight_source import ADAPT_BOUND

    change, kind, fix = PAST_BOUND[case]
    rows, compare = change(_good_rows(), dict(COMPARE))
    prereg, bundle = _table_arm(tmp_path, rows, compare)
    work = tmp_path / "work"
    code, within = _lock_run(work, prereg, bundle)  # within the bound: preflight refuses
    assert code == 2 and len(within) == 1 and within[0].startswith(f"error[{kind}]: ")
    assert not (work / "results" / "table-arm").exists()
    with open(bundle / "padding.bin", "wb") as f:
        f.truncate(ADAPT_BOUND + 1)  # sparse: the bytes read as zeros
    code, past = _lock_run(work, prereg, bundle)  # the job's line, shown, then the run's
    assert code == 2 and set(past) == set(within), past
    arm = work / "results" / "table-arm"
    assert not (arm / "lock").exists() and not (arm / "events").exists()
    assert (arm / "bundle" / "trials.parquet").is_file()  # the adapter's job, before the lock
    if fix == "table":
        _trial_rows(_good_rows()).write_parquet(bundle / "trials.parquet")
    else:
        doc = yaml.safe_load(prereg.read_text(encoding="utf-8"))
        doc["compare"] = dict(COMPARE)
        prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    code, errors = _lock_run(work, prereg, bundle)
    assert code == 0 and errors == [], errors
    assert (arm / "lock" / "lock.json").is_file()


def test_a_control_past_the_bound_is_refused_by_the_lock_and_its_correction_locks(
    tmp_path: Path,
) -> None:
    """A control no run of a jobs folder past ADAPT_BOUND can take: flip_a of 2 trials,
    where run A holds one scored trial of reward 1.0 (_good_rows, by hand: A0 1.0, A1
    0.0). Preflight judges the controls only on a table it adapts, so past the bound
    the control was refused only by the controls' job, after the lock (the arm locked
    on it). Now the lock predicts it with the same code (controls/before_lock.py) before
    it writes anything: preflight's line for the same folder within the bound (the first
    run, before the padding), exit 2, no lock nor events; the prereg corrected (size 1)
    then locks the arm."""
    from audit.trials.preflight_source import ADAPT_BOUND

    prereg, bundle = _table_arm(tmp_path, _good_rows(), dict(COMPARE))
    doc = yaml.safe_load(prereg.read_text(encoding="utf-8"))
    doc["controls"] = {"flip_a": {"kind": "flip", "target": {"run": "A"}, "size": 2}}
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    want = "error[control]: control flip_a: run 'A' cannot take this perturbation"
    work = tmp_path / "work"
    code, within = _lock_run(work, prereg, bundle)  # within the bound: preflight refuses
    assert code == 2 and within == [want], within
    assert not (work / "results" / "table-arm").exists()
    with open(bundle / "padding.bin", "wb") as f:
        f.truncate(ADAPT_BOUND + 1)  # sparse: the bytes read as zeros
    code, past = _lock_run(work, prereg, bundle)
    assert code == 2 and set(past) == {want}, past
    arm = work / "results" / "table-arm"
    assert not (arm / "lock").exists() and not (arm / "events").exists()
    doc["controls"]["flip_a"]["size"] = 1
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    code, errors = _lock_run(work, prereg, bundle)
    assert code == 0 and errors == [], errors
    assert (arm / "lock" / "lock.json").is_file()
