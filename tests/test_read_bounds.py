"""Bounds on what the referee reads from an untrusted file (docs/refusals.md, "Bounds on
what is read"): a parquet file whose pages would decompress past the bound is refused
as too_large from its footer and page headers alone, before polars allocates.

The bomb (tests/parquet_bomb.py) is written byte by byte: one INT64 column whose one
GZIP page holds 64 Mi zeros (512 MiB) in about 2 MiB, and whose footer understates the
chunk's uncompressed size as its compressed one, so only the page headers tell. Its
8-row twin is read by polars to eight zeros: the builder writes real parquet.
The bound worked out by hand: max(256 MiB, 64 x ~2.3 MB) = 256 MiB < 512 MiB.
"""

from __future__ import annotations

import polars as pl
import pytest

from audit.bundles import parquet_bounds
from audit.bundles.digest import read_table
from audit.core import preflight
from audit.errors import AuditError
from tests.parquet_bomb import bomb

BOMB_ROWS = 64 << 20  # 512 MiB of INT64 zeros once decompressed


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("bomb") / "instances.parquet"
    size = bomb(path, BOMB_ROWS)
    assert size < 4 << 20  # small on disk
    return path


def test_the_builder_writes_real_parquet(tmp_path):
    path = tmp_path / "small.parquet"
    bomb(path, 8)
    assert pl.read_parquet(path)["x"].to_list() == [0] * 8
    found = parquet_bounds.check(path)
    assert (found.uncompressed, found.values) == (64, 8)  # 8 rows x 8 bytes, by hand


def test_a_decompression_bomb_is_refused_from_its_page_headers(big):
    with pytest.raises(AuditError) as e:
        parquet_bounds.check(big, "bundle/instances.parquet")
    err = e.value
    assert (err.kind, err.status, err.path) == ("too_large", 2, "bundle/instances.parquet")
    assert f"declare {BOMB_ROWS * 8} bytes" in err.detail
    assert f"bound {parquet_bounds.FLOOR}" in err.detail
    assert "\n" not in str(err)


def test_the_lock_reader_refuses_the_bomb_before_reading_it(big, monkeypatch):
    def never(*a, **k):
        raise AssertionError("polars was asked to read the bomb")

    monkeypatch.setattr(pl, "read_parquet", never)
    with pytest.raises(AuditError) as e:
        read_table(big)
    assert e.value.kind == "too_large"


def test_preflight_refuses_the_bomb_in_a_bundle(big, tmp_path):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "instances.parquet").symlink_to(big)
    with pytest.raises(AuditError) as e:
        preflight.check_bundle(str(bundle), ["instances.parquet"], None)
    assert e.value.kind == "too_large"
    assert e.value.path == f"{bundle}/instances.parquet"


def test_declared_values_past_the_bound_are_refused(tmp_path, monkeypatch):
    """Run-length and dictionary encodings can stand for any number of values in a few
    bytes: the values a file declares are bounded too (here the bound is lowered to 8,
    and a file of 9 rows declares 9: worked out by hand)."""
    path = tmp_path / "nine.parquet"
    bomb(path, 9)
    monkeypatch.setattr(parquet_bounds, "MAX_VALUES", 8)
    with pytest.raises(AuditError) as e:
        parquet_bounds.check(path)
    assert e.value.kind == "too_large" and "declares 9 values" in e.value.detail


@pytest.mark.parametrize(
    "bundle",
    ["openhands-index-3015ac6", "openhands-index-f99e491", "skillsbench-registry"],
)
def test_the_real_bundles_are_within_the_bound(bundle):
    from tests.conftest import ROOT

    folder = ROOT.parent / "shared" / "bundles" / bundle
    if not folder.is_dir():
        pytest.skip("the shared bundles are not here")
    for path in sorted(folder.glob("*.parquet")):
        found = parquet_bounds.check(path)
        assert found.uncompressed <= found.byte_bound
        # the footer's row count is among the values a reader may allocate for
        assert found.values >= pl.scan_parquet(path).select(pl.len()).collect().item()
