"""A swap control moves the rank census as predicted (controls/ranks_predict.py).

The prediction relabels the unperturbed rank files; here it is held against what both
contestants compute from a bundle in which two rows' instance rows really are swapped
(polars rewrites their ids), on a rate and a mean column at once. The rows swapped
are the top and the third of four, so pairs change orientation and verdicts, tie
groups and intervals move. A column where only one of the two rows is ranked is not
predicted, and the check fails a rank file that is not as predicted.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import yaml

from controls.check import check
from controls.ranks_predict import predict, predicted_part
from tests.conftest import ROOT, impl_python, run

IMPLS = ("pandas", "pyarrow")
ITEMS = [f"alpha-{i:02d}" for i in range(40)]
FILES = ("ranks.csv", "rank_pairs.csv")


def _bundle(demo: Path, out: Path) -> Path:
    """The demo with 40 generated alpha items per row: outcomes and costs."""
    out.mkdir()
    (out / "leaderboard.parquet").write_bytes((demo / "leaderboard.parquet").read_bytes())
    inst = pl.read_parquet(demo / "instances.parquet")
    models = dict(inst.select("id", "model").unique().iter_rows())
    rng = random.Random(5)
    rates = {"demo/m1": 0.5, "demo/m2": 0.95, "demo/m3": 0.1, "demo/m4": 0.45}
    rows = [
        (rid, models[rid], "alpha", u, rng.random() < p, round(rng.gauss(4 * p, 1.0), 6))
        for rid, p in rates.items()
        for u in ITEMS
    ]
    alpha = pl.DataFrame(rows, schema=inst.schema, orient="row")
    pl.concat([alpha, inst.filter(pl.col("group") != "alpha")]).write_parquet(
        out / "instances.parquet"
    )
    return out


def _swapped(bundle: Path, out: Path, a: str, b: str) -> Path:
    out.mkdir()
    (out / "leaderboard.parquet").write_bytes((bundle / "leaderboard.parquet").read_bytes())
    inst = pl.read_parquet(bundle / "instances.parquet")
    new = pl.when(pl.col("id") == a).then(pl.lit(b))
    new = new.when(pl.col("id") == b).then(pl.lit(a)).otherwise(pl.col("id"))
    inst.with_columns(new.alias("id")).write_parquet(out / "instances.parquet")
    return out


def _run(prereg: Path, bundle: Path, out: Path) -> dict[str, dict[str, str]]:
    got = {}
    for impl in IMPLS:
        res = run(
            [str(impl_python(impl)), "-m", f"impl_{impl}", "--prereg", str(prereg),
             "--bundle", str(bundle), "--out", str(out / impl), "--no-draws"]
        )  # fmt: skip
        assert res.code == 0, (impl, res.stderr)
        got[impl] = {f: (out / impl / f).read_text(encoding="utf-8") for f in FILES}
    assert got["pandas"] == got["pyarrow"]
    return got


def test_swap_prediction_matches_the_swapped_bundle(impl_envs, demo_bundle, tmp_path) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["ranks"] = {"columns": ["alpha_score", "alpha_cost"], "alpha": 0.05,
                    "correction": "holm", "seed": 3, "draws": 150}  # fmt: skip
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    bundle = _bundle(demo_bundle, tmp_path / "bundle")
    before = _run(prereg, bundle, tmp_path / "before")
    # published: alpha_score m2, m4, m1, m3 (m1 and m2 across m4); alpha_cost m4, m1,
    # m2, m3 (m1 and m2 adjacent)
    after = _run(prereg, _swapped(bundle, tmp_path / "swapped", "demo/m1", "demo/m2"),
                 tmp_path / "after")  # fmt: skip
    got = predict(["demo/m1", "demo/m2"], before["pandas"]["ranks.csv"],
                  before["pandas"]["rank_pairs.csv"])  # fmt: skip
    assert got["columns"] == ["alpha_score", "alpha_cost"] and got["not_predicted"] == {}
    for f in FILES:
        assert got[f] == after["pyarrow"][f], f
        assert got[f] != before["pyarrow"][f], f  # the census moved
    print(after["pyarrow"]["ranks.csv"])


def test_a_column_with_one_of_the_two_unranked_is_not_predicted() -> None:
    """By hand: beta_score ranks m4, m2, m1 (m3's value is null); swapping m1 and m3
    cannot be read from the unperturbed files there."""
    ranks = (
        "column,row_id,published_rank,passes,items,tie_group,rank_lo,rank_hi,next_verdict\n"
        "beta_score,demo/m4,1,3,4,demo/m4,1,1,separated\n"
        "beta_score,demo/m2,2,2,4,demo/m2; demo/m1,2,3,tied\n"
        "beta_score,demo/m1,3,1,4,demo/m2; demo/m1,2,3,\n"
    )
    pairs = (
        "column,row_a,row_b,shared,a_only,b_only,p,p_adjusted,verdict\n"
        "beta_score,demo/m4,demo/m2,4,1,0,0.1,0.3,separated\n"
        "beta_score,demo/m4,demo/m1,4,2,0,0.2,0.3,separated\n"
        "beta_score,demo/m2,demo/m1,4,1,0,1.0,1.0,tied\n"
    )
    got = predict(["demo/m1", "demo/m3"], ranks, pairs)
    assert got["columns"] == [] and list(got["not_predicted"]) == ["beta_score"]
    # swapping m4 and m1 (both ranked), worked by hand: the pair (m4, m2) now holds
    # (m1, m2)'s outcomes, m1 below m2 before, so counts and verdict turn round
    got = predict(["demo/m1", "demo/m4"], ranks, pairs)
    assert got["rank_pairs.csv"] == (
        "column,row_a,row_b,shared,a_only,b_only,p,p_adjusted,verdict\n"
        "beta_score,demo/m4,demo/m2,4,0,1,1.0,1.0,tied\n"
        "beta_score,demo/m4,demo/m1,4,0,2,0.2,0.3,reversed\n"
        "beta_score,demo/m2,demo/m1,4,0,1,0.1,0.3,reversed\n"
    )
    assert got["ranks.csv"] == (
        "column,row_id,published_rank,passes,items,tie_group,rank_lo,rank_hi,next_verdict\n"
        "beta_score,demo/m4,1,1,4,demo/m4; demo/m2,2,3,tied\n"
        "beta_score,demo/m2,2,2,4,demo/m4; demo/m2,2,3,reversed\n"
        "beta_score,demo/m1,3,3,4,demo/m1,1,1,\n"
    )


def test_the_check_fails_a_rank_file_not_as_predicted(tmp_path: Path) -> None:
    """A swap control whose measured ranks.csv differs from the stamped prediction in
    one rank interval fails with that reason; the same files as predicted pass."""
    ranks = (
        "column,row_id,published_rank,passes,items,tie_group,rank_lo,rank_hi,next_verdict\n"
        "s,a,1,3,4,a; b,1,2,tied\ns,b,2,2,4,a; b,1,2,\n"
    )
    pairs = (
        "column,row_a,row_b,shared,a_only,b_only,p,p_adjusted,verdict\ns,a,b,4,1,0,1.0,1.0,tied\n"
    )
    rank = predict(["a", "b"], ranks, pairs)
    assert predicted_part(rank["ranks.csv"], ["s"]) == rank["ranks.csv"]
    cells = "row_id,column,policy,recomputed\n"
    census = "row_id,column,class\n"
    verdicts = {}
    for label, text in (("good", rank["ranks.csv"]), ("bad", rank["ranks.csv"].replace(
            "s,a,1,2,4,a; b,1,2,tied", "s,a,1,2,4,a; b,1,1,tied"))):  # fmt: skip
        assert label == "good" or text != rank["ranks.csv"]
        folders = {}
        for side in ("before", "after"):
            for impl in IMPLS:
                d = tmp_path / label / side / impl
                d.mkdir(parents=True)
                (d / "cells.csv").write_text(cells)
                (d / "census.csv").write_text(census)
                (d / "reproduce.csv").write_text("column,row_id,reproduced_by\n")
                (d / "ranks.csv").write_text(ranks if side == "before" else text)
                (d / "rank_pairs.csv").write_text(
                    pairs if side == "before" else rank["rank_pairs.csv"]
                )
                folders.setdefault(side, {})[impl] = str(d)
        prediction = tmp_path / label / "prediction.csv"
        prediction.write_text("row_id,column,policy,before,after,change\n")
        v = check("swap_ab", "flip", {"row_ids": ["a", "b"], "ranks": rank}, str(prediction),
                  folders["before"], folders["after"], str(tmp_path / label / "c.csv"),
                  str(tmp_path / label / "v.json"))  # fmt: skip
        verdicts[label] = v
    # kind flip here only to spare a swap's divergence requirement (no cells here): the
    # ranks part is the same for any control that carries a rank prediction
    assert not any("ranks.csv" in r for r in verdicts["good"]["reasons"])
    bad = [r for r in verdicts["bad"]["reasons"] if "ranks.csv not as predicted" in r]
    assert len(bad) == 2, verdicts["bad"]["reasons"]
    assert json.loads((tmp_path / "bad" / "v.json").read_text())["verdict"] == "fail"
