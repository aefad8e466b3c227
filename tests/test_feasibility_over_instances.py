"""Feasibility over each row's instance rows (docs/contract.md, Feasibility: `over:
{instances: {group: g}}`), both contestants byte-identical.

N is counted here with polars from the instance table; each verdict is then decided by
trying every whole S in 0..N, rounding 100 S / N half to even at the cell's decimals
with Python's exact Fraction rounding (not the contestants' interval arithmetic). A row
with no instance rows has N = 0: no_count.
"""

from __future__ import annotations

import csv
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
import yaml

from tests.conftest import ROOT, impl_python, run

IMPLS = ("pandas", "pyarrow")


def _prereg(tmp: Path, over: object) -> Path:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["feasibility"] = {
        "alpha_score": {"over": over, "scale": 100, "scores": [0, 1], "decimals": 1,
                        "rounding": "half_even"},
    }  # fmt: skip
    path = tmp / "prereg.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def _run(prereg: Path, bundle: Path, out: Path) -> list[dict[str, str]]:
    got = {}
    for impl in IMPLS:
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(out / impl), "--no-draws"]
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        got[impl] = (out / impl / "feasibility.csv").read_bytes()
    assert got["pandas"] == got["pyarrow"]
    return list(csv.DictReader(got["pyarrow"].decode().splitlines()))


def _verdict(published: str, n: int) -> str:
    if n < 1:
        return "no_count"
    p = Decimal(published)
    d = max(-p.normalize().as_tuple().exponent, 1, 0)
    target = Fraction(p) * 10**d
    hit = any(round(Fraction(100 * s, n) * 10**d) == target for s in range(n + 1))
    return "feasible" if hit else "infeasible"


@pytest.mark.parametrize("group", ["alpha", None])
def test_counts_and_verdicts(impl_envs, demo_bundle: Path, tmp_path: Path, group) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "leaderboard.parquet").write_bytes((demo_bundle / "leaderboard.parquet").read_bytes())
    inst = pl.read_parquet(demo_bundle / "instances.parquet")
    # m3 keeps no alpha row: N = 0 in the alpha group
    inst = inst.filter(~((pl.col("id") == "demo/m3") & (pl.col("group") == "alpha")))
    inst.write_parquet(bundle / "instances.parquet")
    over = {"instances": {"group": group}} if group else {"instances": {}}
    rows = _run(_prereg(tmp_path, over), bundle, tmp_path / "out")
    counted = inst.filter(pl.col("group") == group) if group else inst
    n_of = dict(counted.group_by("id").len().iter_rows())
    assert [r["row_id"] for r in rows] == ["demo/m1", "demo/m2", "demo/m3", "demo/m4"]
    for r in rows:
        n = n_of.get(r["row_id"], 0)
        assert r["n"] == str(n), r
        assert r["verdict"] == _verdict(r["published"], n), (r, n)
    verdicts = {r["row_id"]: r["verdict"] for r in rows}
    print(group, {r["row_id"]: (r["published"], r["n"], r["verdict"]) for r in rows})
    if group:
        assert verdicts["demo/m3"] == "no_count"


@pytest.mark.parametrize(
    "over", [{"instances": {"grp": "alpha"}}, {"instances": {"group": 3}}, {"instances": "alpha"}]
)
def test_malformed_over_instances_refused(impl_envs, demo_bundle, tmp_path, over) -> None:
    prereg = _prereg(tmp_path, over)
    for impl in IMPLS:
        dst = tmp_path / impl
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(demo_bundle), "--out", str(dst), "--no-draws"]
        )  # fmt: skip
        assert res.code == 2 and res.stderr.startswith("error[bad_prereg]: "), (impl, res.stderr)
        assert not dst.exists() or not any(dst.iterdir())
