"""Feasibility declared in the prereg (docs/contract.md, Feasibility), both contestants.

Each contestant runs as its own process in its own environment, on bundles
built here: the demo (hand-checked cells) and an edge leaderboard (0% and
100%, beyond the grid, NaN and null, a null or zero count, every rounding,
tiny and huge values). Expected verdicts are worked by hand in the comments;
the random columns are held to a third method, audit/feasible/grim.py (the
quick check's own code: whole-number interval ends, not either contestant's
arithmetic).
"""

from __future__ import annotations

import copy
import csv
import random
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.feasible.decimals import Printed, from_float, interval
from audit.feasible.grim import Grid, mean_sums
from tests.conftest import ROOT, impl_python, run

IMPLS = ("pandas", "pyarrow")


def _run_both(prereg: Path, bundle: Path, out: Path) -> dict[str, dict[str, bytes]]:
    got = {}
    for impl in IMPLS:
        dst = out / impl
        res = run(
            [
                str(impl_python(impl)),
                "-m",
                f"impl_{impl}",
                "--prereg",
                str(prereg),
                "--bundle",
                str(bundle),
                "--out",
                str(dst),
                "--no-draws",
            ]
        )
        assert res.code == 0, (impl, res.stderr)
        got[impl] = {p.name: p.read_bytes() for p in sorted(dst.iterdir())}
    return got


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(data.decode("utf-8").splitlines()))


def _declare(src: Path, dst: Path, feasibility: dict | None) -> Path:
    doc = yaml.safe_load(src.read_text(encoding="utf-8"))
    if feasibility is not None:
        doc["feasibility"] = feasibility
    dst.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return dst


def test_demo_runtime_and_alpha_score_declared(impl_envs, demo_bundle, tmp_path) -> None:
    # runtime (no_antecedent) over N = 8 in percent: 12.5 = 1/8, 100.0 = 8/8
    # feasible; 7.25 lies between 0/8 = 0 and 1/8 = 12.5: infeasible (0, 1);
    # null: no_value. alpha_score (measured) over categories_completed (2, 2, 1, 2):
    # 37.5 between 0/2 and 1/2 = 50 (infeasible 0, 1), 66.62 between 1/2 and 2/2
    # (1, 2), 0.0 = 0/1, 40.0 between 0 and 50 (0, 1). Only runtime's cell
    # changes class: alpha_score's cells keep theirs.
    prereg = _declare(
        ROOT / "prereg" / "demo.yaml",
        tmp_path / "demo.yaml",
        {
            "runtime": {
                "over": 8,
                "scale": 100,
                "scores": [0, 1],
                "decimals": 1,
                "rounding": "half_even",
            },
            "alpha_score": {
                "over": {"column": "categories_completed"},
                "scale": 100,
                "scores": [0, 1],
                "decimals": 1,
                "rounding": "half_even",
            },
        },
    )
    plain = _run_both(ROOT / "prereg" / "demo.yaml", demo_bundle, tmp_path / "plain")
    got = _run_both(prereg, demo_bundle, tmp_path / "declared")
    assert got["pandas"] == got["pyarrow"]
    assert "feasibility.csv" not in plain["pandas"]
    rows = [list(r.values()) for r in _rows(got["pandas"]["feasibility.csv"])]
    assert rows == [
        ["demo/m1", "alpha_score", "37.500000", "2", "infeasible", "0", "1"],
        ["demo/m1", "runtime", "12.500000", "8", "feasible", "1", "1"],
        ["demo/m2", "alpha_score", "66.620000", "2", "infeasible", "1", "2"],
        ["demo/m2", "runtime", "7.250000", "8", "infeasible", "0", "1"],
        ["demo/m3", "alpha_score", "0.000000", "1", "feasible", "0", "0"],
        ["demo/m3", "runtime", "", "8", "no_value", "", ""],
        ["demo/m4", "alpha_score", "40.000000", "2", "infeasible", "0", "1"],
        ["demo/m4", "runtime", "100.000000", "8", "feasible", "8", "8"],
    ]
    before, after = _rows(plain["pandas"]["census.csv"]), _rows(got["pandas"]["census.csv"])
    changed = [
        (a["row_id"], a["column"], b["class"], a["class"]) for a, b in zip(after, before) if a != b
    ]
    assert changed == [("demo/m2", "runtime", "no_antecedent", "infeasible")]
    for name in ("cells.csv", "reproduce.csv", "chance.csv"):
        assert got["pandas"][name] == plain["pandas"][name]


def _edge_bundle(path: Path, values: list[float | None], counts: list[int | None]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    ids = [f"r{i:03d}" for i in range(len(values))]
    pl.DataFrame(
        {
            "id": ids,
            "n": counts,
            "v_even": values,
            "v_up": values,
            "v_trunc": values,
            "score": [100.0] * len(ids),
        },
        schema={
            "score": pl.Float64,
            "id": pl.String,
            "n": pl.Int64,
            "v_even": pl.Float64,
            "v_up": pl.Float64,
            "v_trunc": pl.Float64,
        },
    ).write_parquet(path / "leaderboard.parquet")
    pl.DataFrame(
        {"id": ids[:1], "group": ["g"], "instance_id": ["i0"], "resolved": [True]}
    ).write_parquet(path / "instances.parquet")
    return path


def _edge_prereg(
    path: Path, over: object, decimals: int = 0, scale: int = 100, scores: list[int] | None = None
) -> Path:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc["disclosure"]["relations"] = []
    doc["columns"] = {
        "structural": ["id", "n"],
        "no_antecedent": ["v_even", "v_up", "v_trunc"],
        "measured": {
            "score": {
                "recipe": "rate",
                "source": "resolved",
                "group": "g",
                "scale": 100,
                "policies": ["A"],
                "tolerance": "score",
            }
        },
    }
    doc["controls"] = {}
    doc["feasibility"] = {
        name: {
            "over": copy.deepcopy(over),  # no shared object: the dump would write an alias
            "scale": scale,
            "scores": list(scores or [0, 1]),
            "decimals": decimals,
            "rounding": rounding,
        }
        for name, rounding in (
            ("v_even", "half_even"),
            ("v_up", "half_up"),
            ("v_trunc", "truncate"),
        )
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def test_edges_by_hand(impl_envs, tmp_path) -> None:
    # N = 89 unless said (the n column), percent, read at their own decimals:
    # r000 87.1: 77/89 = 86.517, 78/89 = 87.640: infeasible (77, 78) under all three.
    # r001 87.64: 78/89 under half even and half up ([87.635, 87.645)); truncated,
    #      87.64 takes [87.64, 87.65): 87.6404 is in it too.
    # r002 86.51: 77/89 = 86.5168 truncates to 86.51 (feasible 77) but rounds to
    #      86.52: infeasible (76, 77) under the other two (76/89 = 85.39).
    # r003 0.0 and r004 100.0: the grid's ends (0 and 89).
    # r005 100.1: above 89/89: infeasible, the nearest below 89, none above.
    # r006 -0.1: below 0/89 under half even and half up ((-0.15, -0.05) holds no
    #      S/89), nearest above 0; truncated, -0.1 is (-0.2, -0.1]: infeasible too.
    # r007 NaN and r008 null: no_value; r009 a null count and r010 a count of 0: no_count.
    # r011 50.0 at N = 2: 1/2 (1, 1).
    # r012 0.05 at N = 2000: half even [0.045, 0.055] holds 1/2000 = 0.05 (1, 1).
    # r013 1e-300 at N = 1: not 0 at 300 decimals, nor 100: infeasible (0, 1).
    values = [
        87.1,
        87.64,
        86.51,
        0.0,
        100.0,
        100.1,
        -0.1,
        float("nan"),
        None,
        50.0,
        50.0,
        50.0,
        0.05,
        1e-300,
    ]
    counts = [89, 89, 89, 89, 89, 89, 89, 89, 89, None, 0, 2, 2000, 1]
    bundle = _edge_bundle(tmp_path / "b", values, counts)
    prereg = _edge_prereg(tmp_path / "p.yaml", {"column": "n"})
    got = _run_both(prereg, bundle, tmp_path / "out")
    assert got["pandas"] == got["pyarrow"]
    table = {
        (r["row_id"], r["column"]): (r["verdict"], r["low"], r["high"])
        for r in _rows(got["pandas"]["feasibility.csv"])
    }
    inf, fea = "infeasible", "feasible"
    expect = {
        "r000": [(inf, "77", "78")] * 3,
        "r001": [(fea, "78", "78")] * 3,
        "r002": [(inf, "76", "77"), (inf, "76", "77"), (fea, "77", "77")],
        "r003": [(fea, "0", "0")] * 3,
        "r004": [(fea, "89", "89")] * 3,
        "r005": [(inf, "89", "")] * 3,
        "r006": [(inf, "", "0")] * 3,
        "r007": [("no_value", "", "")] * 3,
        "r008": [("no_value", "", "")] * 3,
        "r009": [("no_count", "", "")] * 3,
        "r010": [("no_count", "", "")] * 3,
        "r011": [(fea, "1", "1")] * 3,
        "r012": [(fea, "1", "1")] * 3,
        "r013": [(inf, "0", "1")] * 3,
    }
    for rid, verdicts in expect.items():
        for col, v in zip(("v_even", "v_up", "v_trunc"), verdicts, strict=True):
            assert table[(rid, col)] == v, (rid, col)
    census = {(r["row_id"], r["column"]): r["class"] for r in _rows(got["pandas"]["census.csv"])}
    assert census[("r000", "v_even")] == "infeasible"
    assert census[("r001", "v_even")] == "no_antecedent"
    assert census[("r009", "v_even")] == "no_antecedent"


def test_random_cells_agree_with_a_third_method(impl_envs, tmp_path) -> None:
    # 300 random cells: a value S/N * 100 nudged by a random amount and printed at
    # 0 to 3 decimals, N in 1..300, scores 0..1 or 0..4; the contestants' verdict,
    # low and high against audit.feasible.grim's mean_sums (interval ends in
    # exact fractions), for every rounding.
    rng = random.Random(20261203)
    values, counts = [], []
    for _ in range(300):
        n = rng.randint(1, 300)
        d = rng.randint(0, 3)
        x = 100 * rng.randint(-2, 4 * n + 2) / n + rng.choice([0, 0, 0.01, -0.01, 0.004])
        values.append(round(x, d))
        counts.append(n)
    bundle = _edge_bundle(tmp_path / "b", values, counts)
    for scores in ([0, 1], [0, 4]):
        prereg = _edge_prereg(tmp_path / "p.yaml", {"column": "n"}, decimals=1, scores=scores)
        got = _run_both(prereg, bundle, tmp_path / f"out{scores[1]}")
        assert got["pandas"] == got["pyarrow"]
        for r in _rows(got["pandas"]["feasibility.csv"]):
            i = int(r["row_id"][1:])
            rounding = {"v_even": "half_even", "v_up": "half_up", "v_trunc": "truncate"}[
                r["column"]
            ]
            p = from_float(values[i])
            assert p is not None
            p = Printed(p.units * 10 ** max(0, 1 - p.decimals), max(p.decimals, 1))
            g = Grid(counts[i], 1, scores[0], scores[1], Fraction(100))
            mv = mean_sums(g, interval(p, rounding))
            if mv.feasible:
                want = ("feasible", str(mv.sums.start), str(mv.sums.stop - 1))
            else:
                want = (
                    "infeasible",
                    "" if mv.below is None else str(mv.below),
                    "" if mv.above is None else str(mv.above),
                )
            assert (r["verdict"], r["low"], r["high"]) == want, (r, values[i], counts[i])


@pytest.mark.parametrize(
    ("change", "cls", "detail"),
    [
        ({"over": 0}, "bad_prereg", "feasibility"),
        ({"over": 2.0}, "bad_prereg", "feasibility"),
        ({"scores": [1, 1]}, "bad_prereg", "feasibility"),
        ({"over": {"column": "score"}}, "bad_prereg", "feasibility"),
    ],
)
def test_bad_declarations_are_refused_alike(impl_envs, tmp_path, change, cls, detail) -> None:
    bundle = _edge_bundle(tmp_path / "b", [50.0], [2])
    prereg = _edge_prereg(tmp_path / "p.yaml", 2)
    doc = yaml.safe_load(prereg.read_text(encoding="utf-8"))
    doc["feasibility"]["v_even"].update(change)
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    for impl in IMPLS:
        res = run(
            [
                str(impl_python(impl)),
                "-m",
                f"impl_{impl}",
                "--prereg",
                str(prereg),
                "--bundle",
                str(bundle),
                "--out",
                str(tmp_path / impl),
            ]
        )
        assert res.code == 2, (impl, res.stderr)
        assert res.stderr.startswith(f"error[{cls}]: {prereg}: "), (impl, res.stderr)
        assert detail in res.stderr, (impl, res.stderr)
        assert not (tmp_path / impl).exists()


def test_a_declared_text_column_or_a_float_count_is_bad_type(impl_envs, tmp_path) -> None:
    bundle = _edge_bundle(tmp_path / "b", [50.0], [2])
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    lb.with_columns(pl.col("n").cast(pl.Float64)).write_parquet(bundle / "leaderboard.parquet")
    prereg = _edge_prereg(tmp_path / "p.yaml", {"column": "n"})
    for impl in IMPLS:
        res = run(
            [
                str(impl_python(impl)),
                "-m",
                f"impl_{impl}",
                "--prereg",
                str(prereg),
                "--bundle",
                str(bundle),
                "--out",
                str(tmp_path / impl),
            ]
        )
        assert res.code == 2 and res.stderr.startswith("error[bad_type]: "), (impl, res.stderr)
        assert "'n'" in res.stderr, (impl, res.stderr)
