"""The real bundle rewritten with other parquet writer options: the same census, or the
same refusal, from both contestants (docs/contract.md, Types).

pyarrow's writer (tests/fuzz_writer.py, in the pyarrow contestant's environment)
rewrites both files of the bundle with the same content; each contestant must
then write exactly what it writes for the original bundle (all three tables,
census included). Expected values: the contestant's own outputs on the
original, an independent reading of the same content. The encodings the
contract does not read must be refused by both as unsupported_encoding, naming
the leaderboard (read first), the column and the encoding, never as unreadable.

The demo bundle is rewritten once per encoding pyarrow writes (issue 27): each
contestant must give its census of the PLAIN file or refuse with the same line,
and the referee's content digest (polars) must read every one as the PLAIN file.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from audit.bundles.digest import table_digest
from tests.conftest import IMPLS, REAL_BUNDLE, ROOT, run_impl
from tests.writer_client import Writer

PREREG = ROOT / "prereg" / "openhands-index.yaml"
FILES = ("test.parquet", "instances.parquet")
OUTPUTS = ("cells.csv", "census.csv", "chance.csv", "reproduce.csv")

READ = {
    "page v2, no dictionary": {"data_page_version": "2.0", "use_dictionary": False},
    "no dictionary": {"use_dictionary": False},
    "zstd": {"compression": "zstd"},
    "gzip": {"compression": "gzip"},
    "brotli": {"compression": "brotli"},
    "lz4 (LZ4_RAW)": {"compression": "lz4"},
    "uncompressed": {"compression": "none"},
    "no statistics": {"write_statistics": False},
    "row groups of 7 rows": {"row_group_size": 7},
    "page v2, row groups of 1000, zstd": {
        "data_page_version": "2.0", "row_group_size": 1000, "compression": "zstd"
    },
}  # fmt: skip
# fastparquet reads none of these alike (docs/contract.md, Types): DELTA_BINARY_PACKED
# integers in v2 pages come back as other integers, in v1 pages with nulls it corrupts memory
REFUSED = {
    "integers DELTA_BINARY_PACKED": {"delta": True},
    "integers DELTA_BINARY_PACKED, page v2": {"delta": True, "data_page_version": "2.0"},
    "strings DELTA_BYTE_ARRAY": {
        "use_dictionary": False,
        "column_encoding": {"id": "DELTA_BYTE_ARRAY"},
    },
    "strings DELTA_LENGTH_BYTE_ARRAY": {
        "use_dictionary": False,
        "column_encoding": {"id": "DELTA_LENGTH_BYTE_ARRAY"},
    },
    "doubles BYTE_STREAM_SPLIT": {
        "use_dictionary": False,
        "use_byte_stream_split": ["average_score"],
    },
}


@pytest.fixture(scope="module")
def writer(impl_envs):
    w = Writer()
    yield w
    w.close()


@pytest.fixture(scope="module")
def original(impl_envs, tmp_path_factory) -> dict[str, dict[str, bytes]]:
    """Each contestant's outputs on the bundle as published."""
    if not (REAL_BUNDLE / "test.parquet").is_file():
        pytest.skip(f"real bundle not present at ../shared/bundles/{REAL_BUNDLE.name}")
    real_bundle = REAL_BUNDLE
    out = {}
    for impl in IMPLS:
        folder = tmp_path_factory.mktemp(f"original-{impl}")
        res = run_impl(impl, PREREG, real_bundle, folder)
        assert res.code == 0, res.stderr
        out[impl] = {name: (folder / name).read_bytes() for name in OUTPUTS}
    return out


def _rewrite(writer: Writer, src: Path, dst: Path, options: dict) -> Path:
    dst.mkdir(parents=True)
    for name in FILES:
        writer.rewrite(src / name, dst / name, options)
    return dst


def _same_as_original(writer, real_bundle, original, tmp_path, options) -> None:
    bundle = _rewrite(writer, real_bundle, tmp_path / "bundle", options)
    for impl in IMPLS:
        res = run_impl(impl, PREREG, bundle, tmp_path / f"out-{impl}")
        assert res.code == 0, (impl, res.stderr)
        for name in OUTPUTS:
            got = (tmp_path / f"out-{impl}" / name).read_bytes()
            assert got == original[impl][name], (impl, name)


def test_data_page_v2_gives_the_original_census(writer, real_bundle, original, tmp_path) -> None:
    """Issue 13: written with data_page_version="2.0", the pandas contestant refused it."""
    _same_as_original(writer, real_bundle, original, tmp_path, {"data_page_version": "2.0"})


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(READ))
def test_writer_options_give_the_original_census(
    variant, writer, real_bundle, original, tmp_path
) -> None:
    _same_as_original(writer, real_bundle, original, tmp_path, READ[variant])


@pytest.mark.parametrize("variant", sorted(REFUSED))
def test_encodings_outside_the_contract_are_refused_alike(
    variant, writer, real_bundle, tmp_path
) -> None:
    """The contract lists these encodings as unreadable, for both contestants."""
    bundle = _rewrite(writer, real_bundle, tmp_path / "bundle", REFUSED[variant])
    for impl in IMPLS:
        out = tmp_path / f"out-{impl}"
        res = run_impl(impl, PREREG, bundle, out)
        assert res.code == 2, (impl, res.stderr)
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, (impl, res.stderr)
        assert lines[0].startswith(
            f"error[unsupported_encoding]: {bundle / 'test.parquet'}: column '"
        ), lines[0]
        assert "not one the contract reads" in lines[0], lines[0]
        assert not out.exists()


DEMO_PREREG = ROOT / "prereg" / "demo.yaml"
DEMO_FILES = ("leaderboard.parquet", "instances.parquet")
# Each encoding pyarrow writes, and the column kinds (polars dtypes of the demo's
# tables) Arrow writes it for; None: the whole table with that writer option.
DEMO_ENCODINGS = {
    "PLAIN": None,
    "RLE_DICTIONARY": None,
    "BYTE_STREAM_SPLIT floats": ("BYTE_STREAM_SPLIT", (pl.Float64, pl.Float32)),
    "BYTE_STREAM_SPLIT integers": ("BYTE_STREAM_SPLIT", (pl.Int64, pl.Int32)),
    "DELTA_BINARY_PACKED": ("DELTA_BINARY_PACKED", (pl.Int64, pl.Int32)),
    "DELTA_LENGTH_BYTE_ARRAY": ("DELTA_LENGTH_BYTE_ARRAY", (pl.String,)),
    "DELTA_BYTE_ARRAY": ("DELTA_BYTE_ARRAY", (pl.String,)),
}
# the contract's list (docs/contract.md, Types): these read; any other is refused
CONTRACT_READS = {"PLAIN", "RLE_DICTIONARY"}


def _demo_options(variant: str, path: Path) -> tuple[dict, list[str]]:
    """The writer options for one demo table, and the columns given the encoding."""
    if variant == "PLAIN":
        return {"use_dictionary": False}, []
    if variant == "RLE_DICTIONARY":
        return {"use_dictionary": True}, []
    encoding, kinds = DEMO_ENCODINGS[variant]
    schema = pl.read_parquet_schema(path)
    names = [n for n, t in schema.items() if t in kinds]
    return {"use_dictionary": False, "column_encoding": dict.fromkeys(names, encoding)}, names


@pytest.fixture(scope="module")
def demo_plain(writer, demo_bundle, tmp_path_factory) -> tuple[Path, dict[str, dict[str, bytes]]]:
    """The demo bundle written PLAIN, and each contestant's outputs on it."""
    bundle = tmp_path_factory.mktemp("demo-plain") / "bundle"
    bundle.mkdir()
    for name in DEMO_FILES:
        writer.rewrite(
            demo_bundle / name, bundle / name, _demo_options("PLAIN", demo_bundle / name)[0]
        )
    out = {}
    for impl in IMPLS:
        folder = tmp_path_factory.mktemp(f"demo-plain-{impl}")
        res = run_impl(impl, DEMO_PREREG, bundle, folder)
        assert res.code == 0, res.stderr
        out[impl] = {name: (folder / name).read_bytes() for name in OUTPUTS}
    return bundle, out


@pytest.mark.parametrize("variant", list(DEMO_ENCODINGS))
def test_every_encoding_arrow_writes_is_read_alike_or_refused_alike_by_name(
    variant, writer, demo_bundle, demo_plain, tmp_path
) -> None:
    """Issue 27: the census of the PLAIN file, or one line naming the encoding and the
    column, the same from both; never `unreadable`. The referee reads every variant.

    Expected values: the PLAIN file's outputs (each contestant's own) and content
    digests; the refused encodings and their words from docs/contract.md (Types)."""
    plain_bundle, plain_out = demo_plain
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    encoded: list[tuple[str, list[str]]] = []
    for name in DEMO_FILES:
        options, columns = _demo_options(variant, demo_bundle / name)
        writer.rewrite(demo_bundle / name, bundle / name, options)
        encoded.append((name, columns))
    if variant not in ("PLAIN", "RLE_DICTIONARY"):
        assert any(columns for _, columns in encoded), "the demo has no column of this kind"
    # the referee (polars) reads every variant as the PLAIN file's content
    for name in DEMO_FILES:
        got, plain = table_digest(bundle / name), table_digest(plain_bundle / name)
        assert got["content_digest"] == plain["content_digest"], (variant, name)
    encoding = variant if DEMO_ENCODINGS[variant] is None else DEMO_ENCODINGS[variant][0]
    lines = {}
    for impl in IMPLS:
        out = tmp_path / f"out-{impl}"
        res = run_impl(impl, DEMO_PREREG, bundle, out)
        if encoding in CONTRACT_READS:
            assert res.code == 0, (impl, res.stderr)
            for name in OUTPUTS:
                assert (out / name).read_bytes() == plain_out[impl][name], (impl, name)
            continue
        assert res.code == 2, (impl, res.stderr)
        assert not out.exists(), impl
        lines[impl] = res.stderr.strip().splitlines()
        assert len(lines[impl]) == 1, (impl, res.stderr)
    if encoding in CONTRACT_READS:
        return
    # the first file (leaderboard, then instances) holding the encoding, its first such column
    name, columns = next((n, c) for n, c in encoded if c)
    assert lines["pandas"] == lines["pyarrow"], lines
    assert lines["pandas"][0] == (
        f"error[unsupported_encoding]: {bundle / name}: column '{columns[0]}' uses encoding "
        f"{encoding}, not one the contract reads"
    )
