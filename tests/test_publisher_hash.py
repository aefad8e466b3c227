"""The publisher's own hash (OpenHands ``.source_hash``), recomputed at the lock.

The referee writes the CSV without pandas; these tests hold its bytes against pandas'
own ``to_csv(index=False, float_format="%.10g")``, run in the pandas contestant's
environment as a separate process (the independent method), on a frame built the way
the publisher builds it (``pd.DataFrame(rows)``) with values that stress the format:
nulls in text, numbers and booleans, NaN, inf, -0.0, a double beyond 10 significant
digits, an integer column with a null (pandas holds it as doubles), commas, quotes, a
line break, an empty string, non-ASCII text, columns out of order.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.bundles.publisher_hash import pandas_csv
from audit.files import file_blake3
from tests.conftest import REAL_BUNDLE, ROOT, impl_python, run, run_audit

PUBLISHER = r"""
import hashlib, sys
from pathlib import Path
import pandas as pd

out = Path(sys.argv[1])
rows = [
    {"id": "a/1", "zeta": 1/3, "count": 3, "flag": True, "maybe": None,
     "note": 'has, comma "q"', "big": 12345678901.5, "n_null": 4},
    {"id": "a/2", "zeta": None, "count": 10, "flag": False, "maybe": True,
     "note": "line\nbreak", "big": 1e-12, "n_null": None},
    {"id": "b/\u00e9", "zeta": float("nan"), "count": -7, "flag": True, "maybe": False,
     "note": "", "big": -0.0, "n_null": 12345678901},
    {"id": None, "zeta": 95.8, "count": 0, "flag": False, "maybe": None,
     "note": None, "big": float("inf"), "n_null": 2},
]
df = pd.DataFrame(rows)
payload = df.reindex(sorted(df.columns), axis=1).to_csv(index=False, float_format="%.10g")
(out / "payload.csv").write_bytes(payload.encode("utf-8"))
(out / ".source_hash").write_text(hashlib.sha256(payload.encode("utf-8")).hexdigest())
df.to_parquet(out / "leaderboard.parquet", index=False, engine="fastparquet")
ints = pd.DataFrame({"n": [4, None, 12345678901]})
(out / "ints.csv").write_bytes(ints.to_csv(index=False, float_format="%.10g").encode("utf-8"))
nulls = pd.DataFrame({"a": [None, None], "b": [1.5, 2.0]})
(out / "nulls.csv").write_bytes(nulls.to_csv(index=False, float_format="%.10g").encode("utf-8"))
"""


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, impl_envs: None) -> Path:
    out = tmp_path_factory.mktemp("published")
    script = out / "publish.py"
    script.write_text(PUBLISHER)
    res = run([str(impl_python("pandas")), "-W", "ignore", str(script), str(out)])
    assert res.code == 0, res.stderr
    script.unlink()
    return out


def test_the_referee_writes_the_bytes_pandas_writes(published: Path) -> None:
    table = pl.read_parquet(published / "leaderboard.parquet")
    assert pandas_csv(table, "t") == (published / "payload.csv").read_bytes()
    # An integer column with a null, as another writer stores it (Int64 with a null):
    # pandas holds it as doubles, so 12345678901 is written 1.23456789e+10.
    ints = pl.DataFrame({"n": [4, None, 12345678901]}, schema={"n": pl.Int64})
    assert pandas_csv(ints, "t") == (published / "ints.csv").read_bytes()
    assert b"1.23456789e+10" in (published / "ints.csv").read_bytes()
    # A column of the null type: pandas writes each None as an empty field.
    nulls = pl.DataFrame(
        {"a": [None, None], "b": [1.5, 2.0]}, schema={"a": pl.Null, "b": pl.Float64}
    )
    assert pandas_csv(nulls, "t") == (published / "nulls.csv").read_bytes() == b"a,b\n,1.5\n,2\n"


def _lock(tmp: Path, prereg: Path, bundle: Path) -> dict:
    res = run_audit(
        "lock",
        "--kind",
        "leaderboard",
        "--prereg",
        prereg,
        "--expected-blake3",
        file_blake3(prereg),
        "--bundle",
        bundle,
        "--out-dir",
        tmp / "lock",
        "--events",
        tmp / "events.json",
        # The lock as the workflow runs it on a shipped bundle its preflight judged: the
        # leaderboard here is the publisher's table, not one the demo prereg's checks
        # accept (no agent_name column); what is tested is the digest the lock records.
        # The lock's own judging of a bundle is tested in tests/test_hf_fetch.py.
        "--judged",
    )
    assert res.code == 0, res.stderr
    return json.loads((tmp / "lock" / "lock.json").read_text())["publisher_hash"]


def _with_publisher_hash(src: Path, dst: Path) -> Path:
    doc = yaml.safe_load(src.read_text())
    # this test's leaderboard is not the demo's: the demo's disclosed row is not in it
    doc["disclosure"]["relations"] = []
    doc["publisher_hash"] = {
        "recipe": "openhands-source-hash-v1",
        "table": "leaderboard",
        "file": ".source_hash",
    }
    dst.write_text(yaml.safe_dump(doc, sort_keys=False))
    return dst


def test_the_lock_records_matches_differs_and_absent(
    tmp_path: Path, published: Path, demo_bundle: Path
) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    shutil.copyfile(published / "leaderboard.parquet", bundle / "leaderboard.parquet")
    shutil.copyfile(demo_bundle / "instances.parquet", bundle / "instances.parquet")
    shutil.copyfile(published / ".source_hash", bundle / ".source_hash")
    prereg = _with_publisher_hash(ROOT / "prereg" / "demo.yaml", tmp_path / "p.yaml")
    want = hashlib.sha256((published / "payload.csv").read_bytes()).hexdigest()

    rec = _lock(tmp_path / "1", prereg, bundle)
    assert rec["status"] == "matches"
    assert rec["published"] == rec["recomputed"] == want

    (bundle / ".source_hash").write_text("0" * 64 + "\n")
    rec = _lock(tmp_path / "2", prereg, bundle)
    assert rec["status"] == "differs" and rec["recomputed"] == want

    (bundle / ".source_hash").unlink()
    rec = _lock(tmp_path / "3", prereg, bundle)
    assert rec["status"] == "absent" and rec["published"] is None


@pytest.mark.realbundle
def test_the_real_bundle_ships_no_source_hash(
    tmp_path: Path, real_bundle: Path, impl_envs: None
) -> None:
    prereg = _with_publisher_hash(ROOT / "prereg" / "openhands-index.yaml", tmp_path / "p.yaml")
    rec = _lock(tmp_path, prereg, real_bundle)
    assert rec["status"] == "absent"
    # The recomputed digest is pandas' own over the real table (no nullable booleans or
    # integers there, so reading it with fastparquet gives the publisher's dtypes).
    script = tmp_path / "h.py"
    script.write_text(
        "import hashlib, sys\nimport pandas as pd\n"
        "df = pd.read_parquet(sys.argv[1], engine='fastparquet')\n"
        "csv = df.reindex(sorted(df.columns), axis=1).to_csv(index=False, float_format='%.10g')\n"
        "print(hashlib.sha256(csv.encode('utf-8')).hexdigest())\n"
    )
    res = run(
        [str(impl_python("pandas")), "-W", "ignore", str(script), str(REAL_BUNDLE / "test.parquet")]
    )
    assert res.code == 0, res.stderr
    assert rec["recomputed"] == res.stdout.strip()


def test_a_type_the_recipe_does_not_define_is_refused() -> None:
    import datetime

    from audit.errors import AuditError

    table = pl.DataFrame({"when": [datetime.date(2026, 1, 1)]})
    with pytest.raises(AuditError, match="unsupported_type.*'when' is Date"):
        pandas_csv(table, "t.parquet")


@pytest.mark.parametrize(
    "column",
    [
        pl.Series("tags", [["a", "b"], [], None], dtype=pl.List(pl.String)),
        pl.Series("links", [{"url": "u", "n": 1}] * 3),
    ],
    ids=["list", "struct"],
)
def test_a_nested_column_is_refused_at_the_lock_in_one_line(
    tmp_path: Path, demo_bundle: Path, column: pl.Series
) -> None:
    # pandas writes a nested cell with str(): ['a', 'b'] for the Python list a publisher
    # built its frame from, ['a' 'b'] for the numpy array pandas reads back from parquet,
    # so no digest recomputed here is the publisher's: refused, never guessed
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    n = lb.height
    lb.with_columns(pl.concat([column] * n)[:n]).write_parquet(bundle / "leaderboard.parquet")
    (bundle / ".source_hash").write_text("0" * 64 + "\n")
    prereg = _with_publisher_hash(ROOT / "prereg" / "demo.yaml", tmp_path / "p.yaml")
    doc = yaml.safe_load(prereg.read_text())
    doc["columns"]["no_antecedent"].append(column.name)  # a label: the contestants never read it
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False))
    res = run_audit(
        "lock",
        "--prereg",
        prereg,
        "--expected-blake3",
        file_blake3(prereg),
        "--kind",
        "leaderboard",
        "--bundle",
        bundle,
        "--out-dir",
        tmp_path / "lock",
        "--events",
        tmp_path / "events.json",
    )
    assert res.code == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error[unsupported_type]: {bundle}/leaderboard.parquet: column {column.name!r} is "
    ), res.stderr
    assert "publisher_hash recipe does not define it" in lines[0]
    assert "nothing was written" in lines[0]
    assert not (tmp_path / "lock").exists() and not (tmp_path / "events.json").exists()
    # the same bundle without the declaration locks: the label itself is no obstacle
    doc.pop("publisher_hash")
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False))
    res = run_audit(
        "lock",
        "--prereg",
        prereg,
        "--expected-blake3",
        file_blake3(prereg),
        "--kind",
        "leaderboard",
        "--bundle",
        bundle,
        "--out-dir",
        tmp_path / "lock",
        "--events",
        tmp_path / "events.json",
    )
    assert res.code == 0, res.stderr


def test_a_duration_is_refused_not_guessed(impl_envs, tmp_path: Path) -> None:
    """An Arrow duration in seconds (written by impl_pyarrow's pyarrow): an integer to the
    contract, the INT64 stored, but pandas writes a frame of durations as timedelta text
    (pandas 3.1 in impl_pandas' environment: ``0 days 00:00:05`` for 5 seconds) and the
    stored integers only from a frame of integers; which the publisher hashed is not the
    file's to say, so the recipe refuses it before the lock, naming why."""
    from audit.bundles.publisher_hash import judge
    from audit.errors import AuditError
    from tests.test_digest import _seconds_table

    _seconds_table(tmp_path / "lb.parquet", [5, 2**62])
    spec = {"recipe": "openhands-source-hash-v1", "table": "leaderboard", "file": ".source_hash"}
    with pytest.raises(AuditError) as e:
        judge(spec, str(tmp_path), "lb.parquet")
    assert e.value.kind == "unsupported_type" and e.value.path == str(tmp_path / "lb.parquet")
    assert e.value.detail.startswith("column 'n' is an Arrow duration: ")  # not polars' unit
    assert "timedelta text ('0 days 00:00:05')" in e.value.detail
