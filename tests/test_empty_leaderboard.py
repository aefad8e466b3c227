"""A leaderboard with no rows: nothing is claimed, so the census has zero cells and the
run ends well (exit 0), rather than a TypeError after the two contestants agree. The
demo bundle with its leaderboard's rows removed (schema kept), the demo prereg without
relations to rows or controls (they would name rows the table no longer has)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import yaml

from audit.files import file_blake3
from tests.conftest import ROOT, run_audit, run_impl


def test_an_empty_leaderboard_gives_a_census_of_zero_cells(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    board = bundle / "leaderboard.parquet"
    pl.read_parquet(board).head(0).write_parquet(board)
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["disclosure"]["relations"] = []
    doc["controls"] = {}
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    for impl in ("pandas", "pyarrow"):
        res = run_impl(impl, prereg, bundle, tmp_path / impl)
        assert res.code == 0, res.stderr
    steps = [
        ("agree", "--kind", "leaderboard", "--prereg", prereg, "--a", tmp_path / "pandas", "--b", tmp_path / "pyarrow",
         "--out-json", tmp_path / "agreement.json", "--out-md", tmp_path / "agreement.md"),
        ("lock", "--kind", "leaderboard", "--prereg", prereg, "--expected-blake3", file_blake3(prereg), "--bundle",
         bundle, "--out-dir", tmp_path / "lock", "--events", tmp_path / "events.json"),
        ("census", "--agreement", tmp_path / "agreement.json", "--cells", tmp_path / "pandas",
         "--prereg", prereg, "--kind", "leaderboard", "--lock", tmp_path / "lock" / "lock.json", "--out-dir",
         tmp_path / "census"),
    ]  # fmt: skip
    for argv in steps:
        res = run_audit(*map(str, argv))
        assert res.code == 0, (argv[0], res.stderr)
    census = json.loads((tmp_path / "census" / "census.json").read_text())
    # 0 rows x 14 columns (the demo leaderboard's columns, by its schema): 0 cells, 0 each
    assert (census["rows"], census["columns"], census["cells"]) == (0, 14, 0)
    assert set(census["classes"].values()) == {0} and census["with_antecedent"] == 0
    assert (tmp_path / "census" / "census_cells.csv").read_text().count("\n") == 1  # header
