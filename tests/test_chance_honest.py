"""Float-honest agreement beyond chance (docs/contract.md, chance.csv): binary float noise
in instance or published values is not read as precision, and a column's grid is the
finest its published values print.

Thirty rows of 200 instances, both directions, by hand:
- `full`: each instance cost is tokens * $3e-6 + tokens * $1.5e-5, computed in
  doubles (noise in the last places, e.g. 0.0009450000000000001); the
  publisher's value is the contract's own mean of those very doubles, printed in
  full (its repr). Honestly the costs have 6 decimals, so a mean moves by
  1e-6 / 200 = 5e-9; the published values print at most 9 decimals, every point
  of that lattice lies on the 9-decimal grid: every cell is certain, nothing is
  tested, the column is not flagged. Read as printed (17 or more decimals) the
  same column was flagged: its cells printing 9 decimals looked far more exact
  than a 1e-17 lattice explains.
- `built`: a four-decimal published value P per row, and instance values made
  to average to it exactly: pairs P + d and P - d, d a six-decimal number,
  each added in doubles (noise again). Honestly 6 decimals: a mean moves by
  1e-6 / 200, of whose points 1e4 / 2e8 = 5e-5 lie on the 4-decimal grid;
  30 exact cells at 5e-5 each: p = (5e-5)**30, flagged, noise or not.
The SWE-bench site sample (../shared/bundles/swebench-bashonly-sample): its
`instance_cost` is the publisher's cost / 500 printed in full from the very
instance costs it ships, and `cost` their sum: neither is flagged.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
import yaml

from tests.conftest import IMPL_PARAMS, ROOT, read_csv_rows, run_audit, run_impl
from tests.small_board import write_prereg

ROWS = [f"r{i:02d}" for i in range(30)]
N = 200
SAMPLE = ROOT / ".." / "shared" / "bundles" / "swebench-bashonly-sample" / "leaderboards.json"


def _board(folder: Path) -> Path:
    rng = random.Random(29)
    instances = []
    published: dict[str, list] = {"id": ROWS, "full": [], "built": []}
    for row in ROWS:
        full = [rng.randrange(1, 400) * 3e-6 + rng.randrange(1, 90) * 1.5e-5 for _ in range(N)]
        p = rng.randrange(2000, 8000) / 10**4
        built = []
        for _ in range(N // 2):
            d = rng.randrange(1, 10**5) / 10**6
            built += [p + d, p - d]
        published["full"].append(math.fsum(full) / N)  # the contract's mean, in full
        published["built"].append(p)
        instances += [
            {"id": row, "group": "g", "instance_id": f"i{k:03d}", "full": f, "built": b}
            for k, (f, b) in enumerate(zip(full, built, strict=True))
        ]
        # the construction holds: within epsilon of P, and noisy as printed
        assert abs(Fraction(math.fsum(built) / N) - Fraction(repr(p))) <= Fraction(1, 10**12)
    assert any(len(repr(v)) > 12 for v in (r["full"] for r in instances))
    folder.mkdir(parents=True)
    pl.DataFrame(published).write_parquet(folder / "board.parquet")
    pl.DataFrame(instances).write_parquet(folder / "instances.parquet")
    return folder


@pytest.fixture(scope="module")
def board(tmp_path_factory):
    return _board(tmp_path_factory.mktemp("honest") / "bundle")


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_noise_is_not_precision_either_way(impl, impl_envs, board, tmp_path) -> None:
    prereg = write_prereg(
        tmp_path / "p.yaml",
        [
            "full: {recipe: mean, source: full, group: g, policies: [C], tolerance: t}",
            "built: {recipe: mean, source: built, group: g, policies: [C], tolerance: t}",
        ],
        ["t: {exact_decimals: published, tiers: [1]}"],
    )
    r = run_impl(impl, prereg, board, tmp_path / "out")
    assert r.code == 0, r.stderr
    chance = {c["column"]: c for c in read_csv_rows(tmp_path / "out" / "chance.csv")}
    full, built = chance["full"], chance["built"]
    assert (full["certain"], full["exact_certain"], full["tested"]) == ("30", "30", "0")
    assert (full["p_value"], full["constructed"]) == ("1.000000e+00", "no")
    assert (built["tested"], built["exact_beyond"], built["constructed"]) == ("30", "30", "yes")
    assert built["p_cell_max"] == "5.000000e-05"  # 1e4 / 2e8, by hand above
    assert built["p_value"] == f"{float(Fraction(1, 20000) ** 30):.6e}"


def _sample_prereg(path: Path) -> Path:
    """The shipped SWE-bench prereg, with `cost` measured as the sum of instance costs."""
    doc = yaml.safe_load((ROOT / "prereg" / "swebench-bashonly.yaml").read_text())
    cols = doc["columns"]
    cols["no_antecedent"] = [c for c in cols["no_antecedent"] if c != "cost"]
    cols["measured"]["cost"] = {
        "recipe": "sum",
        "source": "cost",
        "group": "bash-only",
        "policies": ["C", "D"],
        "tolerance": cols["measured"]["instance_cost"]["tolerance"],
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_the_swebench_samples_costs_are_not_flagged(impl, impl_envs, tmp_path) -> None:
    if not SAMPLE.is_file():
        pytest.skip("the SWE-bench site sample is not present")
    bundle = tmp_path / "bundle"
    r = run_audit("adapt-swebench-site", SAMPLE, "--board", "bash-only", "--out", bundle)
    assert r.code == 0, r.stderr
    r = run_impl(impl, _sample_prereg(tmp_path / "p.yaml"), bundle, tmp_path / "out")
    assert r.code == 0, r.stderr
    chance = {c["column"]: c for c in read_csv_rows(tmp_path / "out" / "chance.csv")}
    assert chance["instance_cost"]["constructed"] == "no"
    assert chance["cost"]["constructed"] == "no"
    census = read_csv_rows(tmp_path / "out" / "census.csv")
    costs = [c for c in census if c["column"] == "cost"]
    assert len(costs) == 5 and all(c["class"] == "reproduced" for c in costs)
