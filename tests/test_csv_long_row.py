"""A trials arm's CSV leaderboard with a long field, on one line (issue 27).

docs/trials-contract.md 4.3 bounds no field or row of a CSV leaderboard (the lock reads a
CSV table of up to 1 GiB, the referee's csv module with no field limit). Each contestant
had a bound of its own library: impl_pandas the csv module's default field limit
(131,072 characters), impl_pyarrow Arrow's default block (1 MiB, "straddles two block
boundaries"). A leaderboard with a 2 MiB label passed preflight and the lock, then both
refused it as unreadable after the lock, the arm locked on a bundle the contract
accepts. Now impl_pandas raises the limit to the text's length and impl_pyarrow reads
the file in one block, and the run ends (exit 0); each change alone still fails here.
The SkillsBench registry arm, its leaderboard written as CSV under declared types.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import polars as pl
import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

REGISTRY = ROOT.parent / "shared" / "bundles" / "skillsbench-registry"
TYPES = "{model: string, condition: string, score: decimal, ci95: decimal, tasks: integer, source: string}"


def test_a_row_longer_than_a_block_is_read(tmp_path: Path) -> None:
    if not (REGISTRY / "registry.parquet").is_file():
        pytest.skip(f"bundle not present at {REGISTRY}")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    shutil.copyfile(REGISTRY / "registry.parquet", bundle / "registry.parquet")
    lb = pl.read_parquet(REGISTRY / "leaderboard.parquet")
    assert lb.columns == ["model", "condition", "score", "ci95", "tasks", "source"]
    with (bundle / "leaderboard.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(lb.columns)
        for i, row in enumerate(lb.iter_rows()):
            fields = ["" if v is None else repr(v) if isinstance(v, float) else str(v) for v in row]
            if i == 1:
                fields[-1] = "x" * (2 << 20)  # the label source: 2 MiB on one line
            w.writerow(fields)
    assert (bundle / "leaderboard.csv").stat().st_size > 2 << 20
    text = (ROOT / "prereg" / "skillsbench-registry.yaml").read_text(encoding="utf-8")
    old = "  table: leaderboard.parquet\n"
    assert text.count(old) == 1
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace(old, f"  table: leaderboard.csv\n  types: {TYPES}\n"))
    config = [
        "arm=registry-csv",
        f"prereg={prereg}",
        f"prereg_blake3={file_blake3(prereg)}",
        f"bundle={bundle}",
    ]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    assert (tmp_path / "results" / "registry-csv" / "annex").is_dir()
