"""A universe declared as a table of the bundle (docs/contract.md, Recipes):
`denominator: {universe: {column, ids: {file, column}, missing}}`.

The board of tests/test_totals_denominators.py (worked by hand there): row a lists
instances 1-4 (resolved T, T, F, null), b lists 1-2 (T, F), c lists none. A universe
of the ids 1..5, as_null: N = 5 as with {fixed: 5}, so a A 2/5 = 40, B 2/3 =
66.666667; b A 1/5 = 20, B 1/2 = 50; c no data. Read from a table it must give the
same values as listed, in both contestants; the lock hashes the table with the other
bundle files; preflight refuses a missing file or column before the lock; a table
holding a null, a repeated id, no id, or ids of another type is refused by both
contestants in the same words.
"""

from __future__ import annotations

import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.cells import bundle_checks, universe
from audit.cells.prereg import load_record
from audit.errors import AuditError
from audit.files import file_blake3
from tests.conftest import IMPL_PARAMS, run_audit, run_impl
from tests.small_board import SCHEMA, recompute, write_bundle, write_prereg
from tests.test_totals_denominators import INSTANCES, TOLERANCE

HAND = {
    "aA": "40.000000",
    "aB": "66.666667",
    "bA": "20.000000",
    "bB": "50.000000",
    "cA": "",
    "cB": "",
}


def _measured(ids: str, missing: str = "as_null") -> str:
    return (
        "resolved_u: {recipe: rate, source: resolved, group: g, scale: 100, denominator:"
        f" {{universe: {{column: instance_id, ids: {ids}, missing: {missing}}}}},"
        " policies: [A, B], tolerance: t}"
    )


TABLE = "{file: universe.parquet, column: instance_id}"


def _bundle(folder: Path, ids: pl.Series | None) -> Path:
    bundle = write_bundle(
        folder / "bundle",
        {"id": ["a", "b", "c"], "resolved_u": [40.0, 20.0, 1.0]},
        INSTANCES,
        SCHEMA,
    )
    if ids is not None:
        pl.DataFrame({"instance_id": ids, "note": ["x"] * len(ids)}).write_parquet(
            bundle / "universe.parquet"
        )
    return bundle


FIVE = pl.Series(["5", "3", "1", "2", "4"])  # in no order: a set, not a list


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_universe_table_gives_the_values_of_the_same_ids_listed(
    impl, impl_envs, tmp_path: Path
) -> None:
    bundle = _bundle(tmp_path, FIVE)
    prereg = write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE)
    found = recompute(impl, prereg, bundle, tmp_path / "out")
    got = {k[0] + k[2]: c["recomputed"] for k, c in found["cells"].items() if k[1] == "resolved_u"}
    assert got == HAND
    listed = write_prereg(tmp_path / "l.yaml", [_measured("['1', '2', '3', '4', '5']")], TOLERANCE)
    recompute(impl, listed, bundle, tmp_path / "listed")
    for f in ("cells.csv", "census.csv", "chance.csv", "nulls.csv"):
        assert (tmp_path / "out" / f).read_bytes() == (tmp_path / "listed" / f).read_bytes(), f


CASES = [
    (
        pl.Series(["1", "2", None, "3", "4"]),
        "bad_denominator",
        "universe column 'instance_id' holds a null id",
    ),
    (
        pl.Series(["1", "2", "4", "3", "2", "4"]),
        "bad_denominator",
        "universe column 'instance_id' holds id '2' more than once",
    ),
    (
        pl.Series([], dtype=pl.String),
        "bad_denominator",
        "universe column 'instance_id' holds no id",
    ),
    (
        pl.Series([1, 2, 3, 4, 5]),
        "bad_type",
        "universe column 'instance_id' is integer, not string",
    ),
    (
        pl.Series([None] * 5, dtype=pl.Null),
        "unsupported_type",
        "column 'instance_id' has the null type here",
    ),
    # kind other (docs/contract.md, Types): polars' schema named none of the contract's
    # kinds, and the check before the lock left them to the contestants
    (
        pl.Series([date(2026, 1, d) for d in range(1, 6)]),
        "unsupported_type",
        "column 'instance_id' has a type outside the contract's kinds here",
    ),
    (
        pl.Series([1, 2, 3, 4, 5]).cast(pl.Decimal(10, 0)),
        "unsupported_type",
        "column 'instance_id' has a type outside the contract's kinds here",
    ),
    (
        pl.Series([b"1", b"2", b"3", b"4", b"5"]),
        "unsupported_type",
        "column 'instance_id' has a type outside the contract's kinds here",
    ),
    # an Arrow duration is the INT64 the file holds: an integer
    (
        pl.Series([timedelta(seconds=s) for s in range(1, 6)]),
        "bad_type",
        "universe column 'instance_id' is integer, not string",
    ),
]
IDS = ["null", "twice", "empty", "integer", "null-type", "date", "decimal", "binary", "duration"]


@pytest.mark.parametrize(("ids", "kind", "words"), CASES, ids=IDS)
def test_a_universe_table_that_is_not_a_set_of_ids_is_refused_alike(
    impl_envs, tmp_path: Path, ids: pl.Series, kind: str, words: str
) -> None:
    bundle = _bundle(tmp_path, ids)
    prereg = write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE)
    want = f"error[{kind}]: {bundle / 'universe.parquet'}: {words}"
    for impl in ("pandas", "pyarrow"):
        r = run_impl(impl, prereg, bundle, tmp_path / impl)
        assert (r.code, r.stderr.strip()) == (2, want), impl
        assert not (tmp_path / impl).exists()


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_missing_universe_file_or_column_is_refused(impl, impl_envs, tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, None)
    prereg = write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE)
    r = run_impl(impl, prereg, bundle, tmp_path / "out")
    assert r.code == 2
    assert r.stderr.strip().startswith(f"error[missing_file]: {bundle / 'universe.parquet'}: ")
    pl.DataFrame({"id": ["1"]}).write_parquet(bundle / "universe.parquet")
    r = run_impl(impl, prereg, bundle, tmp_path / "out")
    assert r.code == 2
    assert (
        r.stderr.strip().startswith(f"error[missing_column]: {bundle / 'universe.parquet'}: ")
        and "'instance_id'" in r.stderr
    )


def test_preflight_refuses_a_missing_universe_file_or_column(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, None)
    prereg = write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE)
    doc = load_record(prereg)
    for expect in ("missing_file", "missing_column"):
        with pytest.raises(AuditError) as e:
            bundle_checks.check_universe_tables(doc, str(bundle))
        assert e.value.kind == expect and e.value.status == 2
        assert e.value.path == f"{bundle}/universe.parquet" and "\n" not in str(e.value)
        pl.DataFrame({"id": ["1"]}).write_parquet(bundle / "universe.parquet")
    pl.DataFrame({"instance_id": FIVE}).write_parquet(bundle / "universe.parquet")
    bundle_checks.check_universe_tables(doc, str(bundle))
    listed = load_record(write_prereg(tmp_path / "l.yaml", [_measured("['1']")], TOLERANCE))
    assert listed.universe_tables() == []
    bundle_checks.check_universe_tables(listed, str(tmp_path / "nowhere"))  # nothing declared


@pytest.mark.parametrize(("ids", "kind", "words"), CASES, ids=IDS)
def test_preflight_refuses_a_table_the_contestants_refuse_in_their_words(
    tmp_path: Path, ids: pl.Series, kind: str, words: str
) -> None:
    """Before the lock, in the class and words both contestants print (CASES, checked
    against them above): refused only by them, after the lock, the table left a locked
    arm no run completes and whose table could not be changed (arm_locked)."""
    bundle = _bundle(tmp_path, ids)
    doc = load_record(write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE))
    with pytest.raises(AuditError) as e:
        bundle_checks.check_universe_tables(doc, str(bundle))
    assert (e.value.kind, e.value.path, e.value.detail) == (
        kind,
        f"{bundle}/universe.parquet",
        words,
    )
    # the instance table's instance_id repeats each id once per row: the same refusal
    shutil.copyfile(bundle / "instances.parquet", bundle / "universe.parquet")
    with pytest.raises(AuditError) as e:
        bundle_checks.check_universe_tables(doc, str(bundle))
    assert e.value.detail == "universe column 'instance_id' holds id '1' more than once"


def test_the_lock_hashes_the_universe_table(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, FIVE)
    prereg = write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE)

    def lock(out: Path):
        return run_audit(
            "lock", "--prereg", prereg, "--expected-blake3", file_blake3(prereg), "--kind", "leaderboard",
            "--bundle", bundle, "--out-dir", out / "lock", "--events", out / "events.json",
        )  # fmt: skip

    r = lock(tmp_path / "1")
    assert r.code == 0, r.stderr
    files = json.loads((tmp_path / "1" / "lock" / "files.json").read_text())
    entry = files["universe:universe.parquet"]
    assert entry["file"] == "universe.parquet"
    assert entry["blake3"] == file_blake3(bundle / "universe.parquet")
    content = json.loads((tmp_path / "1" / "lock" / "lock.json").read_text())["bundle"]
    assert content["universe:universe.parquet"]["rows"] == 5
    roles = [
        e.get("role") for e in json.loads((tmp_path / "1" / "events.json").read_text())["records"]
    ]
    assert "universe:universe.parquet" in roles
    # the ids the controls read: the table's, listed
    doc = universe.inlined(load_record(prereg), bundle)
    ids = doc.measured["resolved_u"].denominator.universe.ids
    assert sorted(ids) == ["1", "2", "3", "4", "5"]
    (bundle / "universe.parquet").unlink()
    r = lock(tmp_path / "2")
    assert r.code == 2 and r.stderr.startswith(f"error[missing_file]: {bundle}/universe.parquet")
    assert not (tmp_path / "2" / "lock").exists()
    # a table the contestants refuse is refused by the lock too, which a bundle a rule
    # builds (the demo, a Hub fetch) reaches with no check before it: nothing locked
    pl.DataFrame({"instance_id": ["1", "2", "1"]}).write_parquet(bundle / "universe.parquet")
    r = lock(tmp_path / "3")
    assert r.code == 2 and r.stderr.strip() == (
        f"error[bad_denominator]: {bundle}/universe.parquet: "
        "universe column 'instance_id' holds id '1' more than once"
    )
    assert not (tmp_path / "3" / "lock").exists() and not (tmp_path / "3" / "events.json").exists()


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_contestant_reads_only_the_universe_bytes_the_lock_hashed(
    impl, impl_envs, tmp_path: Path
) -> None:
    bundle = _bundle(tmp_path, FIVE)
    prereg = write_prereg(tmp_path / "p.yaml", [_measured(TABLE)], TOLERANCE)
    r = run_audit(
        "lock", "--prereg", prereg, "--expected-blake3", file_blake3(prereg), "--kind", "leaderboard",
        "--bundle", bundle, "--out-dir", tmp_path / "lock", "--events", tmp_path / "e.json",
    )  # fmt: skip
    assert r.code == 0, r.stderr
    # the universe changed after the lock: one id fewer
    pl.DataFrame({"instance_id": ["1", "2", "3", "4"]}).write_parquet(bundle / "universe.parquet")
    from tests.conftest import impl_python, run

    res = run(
        [
            str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
            "--bundle", str(bundle), "--out", str(tmp_path / "out"),
            "--lock", str(tmp_path / "lock" / "files.json"),
        ]
    )  # fmt: skip
    assert res.code == 2 and "universe.parquet" in res.stderr, res.stderr
    assert not (tmp_path / "out").exists()


def _swebench_arm(tmp_path: Path) -> tuple[Path, Path]:
    """The SWE-bench join's bundle (tests/test_swebench_join.py) and its prereg, the
    resolved rate held to the dataset's ten instances d-01..d-10 as a table (refuse:
    every report lists all ten), plus a nullify control."""
    from tests.test_swebench_join import PREREG, _joined

    bundle = tmp_path / "bundle"
    assert _joined(bundle).code == 0
    ids = [f"d-{i:02d}" for i in range(1, 11)]
    pl.DataFrame({"instance_id": ids}).write_parquet(bundle / "universe.parquet")
    doc = yaml.safe_load(PREREG.read_text())
    doc["columns"]["measured"]["resolved"]["denominator"] = {
        "universe": {
            "column": "instance_id",
            "ids": {"file": "universe.parquet", "column": "instance_id"},
            "missing": "refuse",
        }
    }
    doc["controls"]["nullify_seeded_resolved"] = {
        "kind": "nullify",
        "column": "resolved",
        "target": "seeded",
        "size": 1,
    }
    prereg = tmp_path / "p.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False))
    config = tmp_path / "arm.yaml"
    config.write_text(
        f"arm: universe\nseat: first\nbundle: {bundle}\nprereg: {prereg}\n"
        f"prereg_blake3: {file_blake3(prereg)}\n"
    )
    return bundle, config


def test_the_run_stops_before_the_lock_without_the_universe_table(tmp_path: Path) -> None:
    from tests.conftest import run_dag

    bundle, config = _swebench_arm(tmp_path)
    (bundle / "universe.parquet").unlink()
    p = run_dag(tmp_path, "--configfile", str(config))
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and lines[0].startswith(
        f"error[missing_file]: {bundle}/universe.parquet: "
    ), p.stderr[-3000:]
    assert not (tmp_path / "results" / "universe").exists()


@pytest.mark.slow
def test_a_universe_table_to_a_sealed_annex(impl_envs, tmp_path: Path) -> None:
    from tests.conftest import read_csv_rows, run_dag

    bundle, config = _swebench_arm(tmp_path)
    p = run_dag(tmp_path, "--configfile", str(config))
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "universe"
    assert (res / "annex" / "manifest.json").is_file()
    assert json.loads((res / "agreement.json").read_text())["disagreements"] == 0
    # N = 10 for every report, as each lists the ten: the values of test_swebench_join
    got = {
        c["row_id"]: (c["class"], c["policies"])
        for c in read_csv_rows(res / "census_cells.csv")
        if c["column"] == "resolved"
    }
    assert got == {
        "acme__coder-1": ("reproduced", "A"),
        "beta": ("reproduced", "B"),
        "gamma": ("divergent", ""),
        "epsilon": ("no_data", ""),
    }
    # the controls' perturbed bundles carry the table, and every control passes
    assert {c["verdict"] for c in read_csv_rows(res / "controls.csv")} == {"pass"}
    files = json.loads((res / "lock" / "files.json").read_text())
    assert files["universe:universe.parquet"]["blake3"] == file_blake3(bundle / "universe.parquet")


def test_a_locked_arm_refuses_another_universe_table(tmp_path: Path) -> None:
    from tests.conftest import run_dag

    bundle, config = _swebench_arm(tmp_path)
    p = run_dag(tmp_path, "--configfile", str(config), "--until", "lock")
    assert p.returncode == 0, p.stderr[-3000:]
    assert (tmp_path / "results" / "universe" / "lock" / "lock.json").is_file()
    # one id fewer after the lock: other content under the locked arm
    ids = [f"d-{i:02d}" for i in range(1, 10)]
    pl.DataFrame({"instance_id": ids}).write_parquet(bundle / "universe.parquet")
    p = run_dag(tmp_path, "--configfile", str(config))
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1, p.stderr[-3000:]
    assert lines[0].startswith(f"error[arm_locked]: {bundle}/universe.parquet: ")
    assert "universe:universe.parquet content digest" in lines[0]


def _corrupt_page(table: Path) -> str:
    """Ids whose footer and page headers are sound but whose compressed data does not
    decompress (16 bytes flipped a third of the way in, inside the one GZIP column chunk):
    both contestants refuse it as unreadable when they read the ids."""
    ids = [f"alpha-{i:02d}" for i in range(8)] + [f"pad-{i:05d}" for i in range(3000)]
    pl.DataFrame({"instance_id": ids}).write_parquet(table, compression="gzip", statistics=False)
    data = bytearray(table.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 16):
        data[i] ^= 0xFF
    table.write_bytes(bytes(data))
    return "unreadable"


def _dates(table: Path) -> str:
    pl.DataFrame({"instance_id": [date(2026, 1, d) for d in range(1, 9)]}).write_parquet(table)
    return "unsupported_type"


def _durations(table: Path) -> str:
    ids = [timedelta(seconds=s) for s in range(8)]
    pl.DataFrame({"instance_id": ids}).write_parquet(table)
    return "bad_type"


def _id_column_twice(table: Path) -> str:
    """Two columns named instance_id: the second written instance_i# and renamed in the
    footer's bytes (no dataframe library writes one)."""
    ids = [f"alpha-{i:02d}" for i in range(8)]
    pl.DataFrame({"instance_id": ids, "instance_i#": ids}).write_parquet(table, statistics=False)
    table.write_bytes(table.read_bytes().replace(b"instance_i#", b"instance_id"))
    return "duplicate_column"


# Universe tables the check before the lock did not refuse as both contestants do: a
# page that does not read raised polars' own error (a traceback as the workflow was
# read); dates read as no id of the universe (a false bad_denominator of the instance
# table); a duration was cast to text and failed; two id columns read as unreadable.
UNIVERSE_TABLES = {
    "a page that does not read": _corrupt_page,
    "dates": _dates,
    "durations": _durations,
    "the id column twice": _id_column_twice,
}


@pytest.mark.parametrize("case", list(UNIVERSE_TABLES))
def test_a_universe_table_the_contestants_refuse_is_refused_before_any_job(
    case, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """The demo arm with alpha_score's universe a table of the bundle: both contestants
    refuse the table in one class, and the workflow refuses it in that class, naming
    the table: one line, exit 2, nothing under results/demo/."""
    from tests.conftest import ROOT, run_dag

    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    kind = UNIVERSE_TABLES[case](bundle / "universe.parquet")
    alpha = "alpha_score: {recipe: rate, source: resolved, group: alpha, scale: 100,"
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert alpha in text
    prereg = tmp_path / "demo.yaml"
    prereg.write_text(
        text.replace(alpha, f"{alpha} denominator: {{universe: {{column: instance_id, ids: {TABLE},"
                     " missing: as_null}},"),
        encoding="utf-8",
    )  # fmt: skip
    head = f"error[{kind}]: {bundle}/universe.parquet: "
    for impl in ("pandas", "pyarrow"):
        r = run_impl(impl, prereg, bundle, tmp_path / impl)
        assert r.code == 2 and r.stderr.startswith(head), (impl, r.stderr)
    p = run_dag(tmp_path, "--config", f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}",
                f"bundle={bundle}")  # fmt: skip
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0].startswith(head), lines[0]
    assert not (tmp_path / "results" / "demo").exists()
