"""A bundle file in an encoding the contract does not read is refused before the lock.

Both contestants refuse a column chunk listing DELTA_BINARY_PACKED,
DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY or BYTE_STREAM_SPLIT (docs/contract.md,
Types) as unsupported_encoding, whichever column it is (tests/test_parquet_variants.py).
The referee's polars reads such a file, so before this check the lock hashed it, the
arm was locked, both contestants refused it (Snakemake's exit 1) and the corrected
bundle was then refused as arm_locked. Now the workflow refuses it as it is read,
in the contestants' own line (expected values: that line, from each contestant run on
the same bundle, an independent reading of the footer by fastparquet and Arrow), exit
2, nothing under results/<arm>/; the lock refuses it too, for a bundle a rule builds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import IMPLS, ROOT, run_audit, run_dag, run_impl
from tests.writer_client import Writer

PREREG = ROOT / "prereg" / "demo.yaml"
# the encoding, and the columns given it (polars dtypes)
CASES = {
    "BYTE_STREAM_SPLIT": (pl.Float64, pl.Float32),
    "DELTA_BINARY_PACKED": (pl.Int64, pl.Int32),
    "DELTA_LENGTH_BYTE_ARRAY": (pl.String,),
    "DELTA_BYTE_ARRAY": (pl.String,),
}
FILES = ("leaderboard.parquet", "instances.parquet")  # in the order the contestants read them


@pytest.fixture(scope="module")
def writer(impl_envs):
    w = Writer()
    yield w
    w.close()


def _encoded(writer: Writer, demo_bundle: Path, folder: Path, encoding: str) -> tuple[str, str]:
    """The demo bundle, every column of the encoding's kinds written in it, in folder/bundle;
    the first file holding such a column, and its first such column."""
    bundle = folder / "bundle"
    bundle.mkdir(parents=True)
    first = []
    for name in FILES:
        src = demo_bundle / name
        names = [n for n, t in pl.read_parquet_schema(src).items() if t in CASES[encoding]]
        options = {"use_dictionary": False, "column_encoding": dict.fromkeys(names, encoding)}
        writer.rewrite(src, bundle / name, options)
        first += [(name, n) for n in names]
    assert first, f"the demo has no column for {encoding}"
    return first[0]


def _contestants_line(bundle: Path, folder: Path) -> str:
    """Both contestants' one line for the bundle, which must be the same."""
    lines = set()
    for impl in IMPLS:
        res = run_impl(impl, PREREG, bundle, folder / f"out-{impl}")
        assert res.code == 2, (impl, res.stderr)
        lines.add(res.stderr.strip())
    assert len(lines) == 1, lines
    return lines.pop()


@pytest.mark.parametrize("encoding", list(CASES))
def test_an_unread_encoding_is_refused_before_any_job(
    encoding, writer, demo_bundle: Path, tmp_path: Path
) -> None:
    name, column = _encoded(writer, demo_bundle, tmp_path, encoding)
    bundle = tmp_path / "bundle"
    want = _contestants_line(bundle, tmp_path)
    assert want == (
        f"error[unsupported_encoding]: {bundle}/{name}: column '{column}' uses"
        f" encoding {encoding}, not one the contract reads"
    )
    p = run_dag(tmp_path, "--config", f"prereg={PREREG}", f"bundle={bundle}")
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert lines == [want], p.stderr[-3000:]
    assert not (tmp_path / "results" / "demo").exists()


def test_a_column_no_recipe_reads_is_refused_too(writer, demo_bundle: Path, tmp_path: Path) -> None:
    """The contestants refuse the encoding in any column, not only those the prereg
    names: an extra float column of the instance table, BYTE_STREAM_SPLIT alone."""
    plain = tmp_path / "plain.parquet"
    inst = pl.read_parquet(demo_bundle / "instances.parquet")
    inst.with_columns(pl.lit(0.5).alias("zz_unread")).write_parquet(plain)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    shutil.copyfile(demo_bundle / "leaderboard.parquet", bundle / "leaderboard.parquet")
    options = {"use_dictionary": False, "column_encoding": {"zz_unread": "BYTE_STREAM_SPLIT"}}
    writer.rewrite(plain, bundle / "instances.parquet", options)
    want = _contestants_line(bundle, tmp_path)
    assert want == (
        f"error[unsupported_encoding]: {bundle}/instances.parquet: column 'zz_unread' uses"
        " encoding BYTE_STREAM_SPLIT, not one the contract reads"
    )
    p = run_dag(tmp_path, "--config", f"prereg={PREREG}", f"bundle={bundle}")
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    assert [x for x in p.stderr.splitlines() if x.startswith("error[")] == [want]
    assert not (tmp_path / "results" / "demo").exists()


def test_the_lock_refuses_it_and_writes_nothing(writer, demo_bundle: Path, tmp_path: Path) -> None:
    """A bundle a rule builds (a Hub fetch) reaches the lock with no check before it."""
    from audit.files import file_blake3

    name, column = _encoded(writer, demo_bundle, tmp_path, "DELTA_BYTE_ARRAY")
    bundle = tmp_path / "bundle"
    out = tmp_path / "results" / "demo"
    res = run_audit(
        "lock", "--prereg", PREREG, "--kind", "leaderboard",
        "--expected-blake3", file_blake3(PREREG), "--bundle", bundle,
        "--out-dir", out / "lock", "--results", tmp_path / "results",
        "--events", out / "events" / "lock.json",
    )  # fmt: skip
    assert res.code == 2, res.stderr
    assert res.stderr.strip() == (
        f"error[unsupported_encoding]: {bundle}/{name}: column '{column}' uses"
        " encoding DELTA_BYTE_ARRAY, not one the contract reads"
    )
    assert not out.exists()


def _footer_says(demo_bundle: Path, folder: Path, codec: int) -> Path:
    """The demo bundle, its instance table written SNAPPY with one byte of its footer
    edited so that the chunk of column cost declares the codec numbered ``codec`` in
    parquet.thrift. Neither Arrow nor polars writes LZO or framed LZ4, so the footer is
    what says it: in ColumnMetaData (Thrift compact protocol) path_in_schema, field 3,
    a list of one binary (``\\x19\\x18``, length 4, ``cost``), is followed by codec,
    field 4, an i32 (``\\x15``, zigzag: SNAPPY 1 is ``\\x02``)."""
    bundle = folder / "bundle"
    shutil.copytree(demo_bundle, bundle)
    inst = bundle / "instances.parquet"
    pl.read_parquet(inst).write_parquet(inst, compression="snappy", statistics=False)
    data = inst.read_bytes()
    # the footer: its length in the 4 bytes before the closing PAR1 (polars also writes a
    # copy of each chunk's metadata after its pages, which readers do not use)
    start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    was = b"\x19\x18\x04cost\x15\x02"
    assert data[start:].count(was) == 1, "one row group, one chunk of cost"
    at = data.index(was, start) + len(was) - 1
    inst.write_bytes(data[:at] + bytes([2 * codec]) + data[at + 1 :])
    return bundle


@pytest.mark.parametrize(("codec", "named"), [(3, "LZO"), (5, "LZ4")])
def test_a_codec_the_contract_does_not_list_is_refused_before_any_job(
    codec, named, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """Both contestants refuse the file from its footer as unreadable, naming the column
    (the framed LZ4 in their own words: LZ4 from fastparquet's enum, LZ4_HADOOP from
    Arrow's); the workflow refuses it so before any job, where the lock used to refuse
    it as a job, polars failing on the pages."""
    bundle = _footer_says(demo_bundle, tmp_path, codec)
    head = f"error[unreadable]: {bundle}/instances.parquet: column 'cost' uses compression "
    for impl in IMPLS:
        res = run_impl(impl, PREREG, bundle, tmp_path / f"out-{impl}")
        assert res.code == 2 and res.stderr.startswith(head), (impl, res.stderr)
    p = run_dag(tmp_path, "--config", f"prereg={PREREG}", f"bundle={bundle}")
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert lines == [head + f"{named}, not one the contract reads"], p.stderr[-3000:]
    assert not (tmp_path / "results" / "demo").exists()
