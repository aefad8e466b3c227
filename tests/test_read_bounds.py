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

from pathlib import Path

import polars as pl
import pytest

from audit import preflight
from audit.bundles import parquet_bounds
from audit.bundles.digest import read_table
from audit.cells import bundle_checks
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


# An annex's files as verify and compare-annex read them (the seal's own reading too):
# each summary file is read whole, so its size is judged first. Files past the bound
# are sparse (a size, no bytes); a FIFO stands where a file is expected and must be
# refused at once (a reader that opened it would wait for a writer forever).


def _sparse(path, size):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        f.truncate(size)
    return path


def _agreement(folder):
    import json

    doc = {
        "contestants": ["pandas", "pyarrow"],
        "census_cells_compared": 0,
        "disagreements": 0,
        "all_byte_identical": True,
        "files": [],
    }
    (folder / "agreement.json").write_text(json.dumps(doc))


def test_an_annex_census_past_the_bound_is_refused_unread(tmp_path):
    from audit.seal.annex import tests_of
    from audit.seal.contract import MAX_TEXT

    _agreement(tmp_path)
    _sparse(tmp_path / "census_cells.csv", MAX_TEXT + 1)
    with pytest.raises(AuditError) as e:
        tests_of(tmp_path)
    assert e.value.kind == "too_large" and e.value.path.endswith("census_cells.csv")


def test_an_agreement_file_past_the_bound_or_a_fifo_is_refused(tmp_path):
    import os

    from audit.core.agreement import MAX_FILE, Agreement

    _sparse(tmp_path / "agreement.json", MAX_FILE + 1)
    with pytest.raises(AuditError) as e:
        Agreement.read(tmp_path / "agreement.json")
    assert e.value.kind == "too_large"
    (tmp_path / "agreement.json").unlink()
    os.mkfifo(tmp_path / "agreement.json")
    with pytest.raises(AuditError) as e:  # no writer: a blocking read would hang here
        Agreement.read(tmp_path / "agreement.json")
    assert "FIFO" in e.value.detail


def test_a_ledger_past_the_bound_is_one_problem_unread(tmp_path):
    from audit.seal import ledger

    path = _sparse(tmp_path / "ledger.jsonl", ledger.MAX_LEDGER + 1)
    found = ledger.check(path)
    assert [k for k, _ in found] == ["too_large"], found
    with pytest.raises(AuditError) as e:
        ledger.read_raw(path)
    assert e.value.kind == "too_large"


def test_an_annex_summary_that_is_a_fifo_is_refused_without_hanging(tmp_path):
    """verify derives the signed verdict again from the annex's controls.csv: a FIFO there
    stops it with one classed line rather than a read that waits forever."""
    import os

    from audit.seal.annex import tests_of

    _agreement(tmp_path)
    os.mkfifo(tmp_path / "controls.csv")
    with pytest.raises(AuditError) as e:
        tests_of(tmp_path)
    assert e.value.path.endswith("controls.csv") and "FIFO" in e.value.detail


def _universe_record():
    """The demo prereg's record with one measured column whose universe is that table."""
    from dataclasses import replace
    from types import MappingProxyType

    from audit.cells.prereg import load_record
    from audit.cells.record import Column, Denominator, Universe

    universe = Universe("instance_id", "as_null", file="universe.parquet", id_column="x")
    column = Column("m", "rate", "resolved", "alpha", 100, Denominator(universe=universe))
    demo = load_record(Path(__file__).resolve().parents[1] / "prereg" / "demo.yaml")
    return replace(demo, measured=MappingProxyType({"m": column}))


def test_a_universe_table_past_the_bound_is_refused_unread(tmp_path, monkeypatch):
    """A universe table (docs/contract.md, Recipes) is a bundle file the referee reads
    whole (preflight before the lock, the controls' ids): bounded like the others. The
    9-row file declares 9 values past a bound lowered to 8 (as above, by hand); before,
    preflight passed it (it read the footer's schema) and polars read it whole."""
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    pl.DataFrame({"id": ["a"]}).write_parquet(bundle / "leaderboard.parquet")
    bomb(bundle / "universe.parquet", 9)
    monkeypatch.setattr(parquet_bounds, "MAX_VALUES", 8)

    def never(*a, **k):
        raise AssertionError("polars was asked to read the universe table")

    monkeypatch.setattr(pl, "read_parquet", never)
    from audit.cells import universe

    for read in (
        lambda: bundle_checks.check_universe_tables(_universe_record(), str(bundle)),
        lambda: universe.inlined(_universe_record(), bundle),
    ):
        with pytest.raises(AuditError) as e:
            read()
        assert e.value.kind == "too_large" and "declares 9 values" in e.value.detail
        assert e.value.path == f"{bundle}/universe.parquet"


def test_a_trials_job_file_past_the_bound_or_a_fifo_is_refused(tmp_path):
    """The trials adapters read every job's JSON whole (audit.adapters.base.Reader): a file
    past the bound is too_large, a FIFO is refused at once, and a sniffing read of either
    finds no JSON rather than hanging."""
    import os

    from audit.adapters.base import MAX_JOB_FILE, Reader

    _sparse(tmp_path / "run" / "result.json", MAX_JOB_FILE + 1)
    os.mkfifo(tmp_path / "run" / "config.json")
    rd = Reader(str(tmp_path))
    with pytest.raises(AuditError) as e:
        rd.read_json("run/result.json")
    assert e.value.kind == "too_large" and e.value.path.endswith("result.json")
    err = _refused_at_once(rd.read_json, "run/config.json")
    assert "FIFO" in err.detail
    assert rd.peek_json("run/config.json") is None and rd.peek_json("run/result.json") is None


def _refused_at_once(call, *args):
    import threading

    got = {}

    def run():
        try:
            call(*args)
        except AuditError as e:
            got["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "the reader blocked on a FIFO"
    return got["error"]
