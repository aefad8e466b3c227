"""The real bundle rewritten with other parquet writer options: the same census, or the
same refusal, from both contestants (docs/contract.md, Types).

pyarrow's writer (tests/fuzz_writer.py, in the pyarrow contestant's environment)
rewrites both files of the bundle with the same content; each contestant must
then write exactly what it writes for the original bundle (all three tables,
census included). Expected values: the contestant's own outputs on the
original, an independent reading of the same content. The encodings the
contract does not read must be refused by both as unreadable, naming the
leaderboard (read first).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import IMPLS, REAL_BUNDLE, ROOT, run_impl
from tests.writer_client import Writer

PREREG = ROOT / "prereg" / "openhands-index.yaml"
FILES = ("test.parquet", "instances.parquet")
OUTPUTS = ("cells.csv", "census.csv", "reproduce.csv")

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
        assert lines[0].startswith(f"error[unreadable]: {bundle / 'test.parquet'}: "), lines[0]
        assert "not one the contract reads" in lines[0], lines[0]
        assert not out.exists()
