"""A control names its row as the contestants write it, whatever the row id's kind (issue 27).

The controls named a leaderboard row by Python's ``str`` of its row id (a float 2.5
`2.5`, a boolean `False`), the contestants by the contract's Values text (`2.500000`,
`false`: docs/contract.md, Values). The controls' check looks for each predicted cell on
cells.csv's line of the row, found none, and the control FAILED on a correct bundle (a
false verdict, no refusal). Now a row's text is its Values text everywhere the referee
and the controls name a row (controls/keys.py ``RowIds``, from
audit/bundles/values_text.py ``row_name``): the prediction, the selection, the check,
a prereg's named row (which then says `"2.500000"`, quoted) and the disclosure.

Expected values worked out by hand from the demo bundle (audit/bundles/demo.py):
demo/m2 lists beta-00 .. beta-09, beta-00 .. beta-06 resolved (beta_score 7/10 = 70 under
A and B), and alpha 2 of 3 true (alpha_score 66.666667); a flip of 2 of its true beta
values makes beta_score 5/10 = 50 under A and B, and average_score (66.666667 + 50) / 2 =
58.333333 (tests/test_control_key_text.py works out the same flip on the same rows).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import blake3
import polars as pl
import pytest
import yaml

from audit.files import file_blake3
from tests.conftest import ROOT, copy_bundle, run_dag

FLOATS = {"demo/m1": 1.5, "demo/m2": 2.5, "demo/m3": 3.5, "demo/m4": 4.5}
# two rows only: a boolean row id has two values; demo/m3's and demo/m4's rows dropped
BOOLEANS = {"demo/m1": True, "demo/m2": False}


def _bundle(demo: Path, tmp: Path, ids: dict, dtype: pl.DataType) -> Path:
    """The demo bundle with its row id ``ids[<string id>]`` in both tables (rows whose id
    ``ids`` does not list dropped from both)."""
    bundle = copy_bundle(demo, tmp / "bundle")
    for name in ("leaderboard.parquet", "instances.parquet"):
        path = bundle / name
        table = pl.read_parquet(path).filter(pl.col("id").is_in(list(ids)))
        table.with_columns(pl.col("id").replace_strict(ids, return_dtype=dtype)).write_parquet(path)
    return bundle


def _prereg(tmp: Path, m2: str) -> Path:
    """The demo prereg with two controls: flip_m2_beta on the row named ``m2`` (demo/m2's
    row id as Values writes it, quoted) and the seeded shift of alpha_cost; the
    disclosure relating the auditor to that row."""
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    flip = doc["controls"]["flip_m2_beta"]
    assert flip["target"] == {"row_id": "demo/m2"} and flip["size"] == 2
    flip["target"] = {"row_id": m2}
    seeded = doc["controls"]["shift_seeded_alpha_cost"]
    assert seeded["target"] == "seeded"
    doc["controls"] = {"flip_m2_beta": flip, "shift_seeded_alpha_cost": seeded}
    (relation,) = doc["disclosure"]["relations"]
    assert relation["row"] == "demo/m2"
    relation["row"] = m2
    out = tmp / "demo-row-text.yaml"
    out.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    assert f"row_id: '{m2}'" in out.read_text(encoding="utf-8")  # quoted: a string
    return out


def _seeded_first(seed: int, label: str, d: int, n: int) -> int:
    """The first of positions 0..n-1 by (key, i), key(i) the first 8 bytes big-endian of
    blake3(f"{seed}|{label}|{d}|{i}"): the selection rule of controls/select.py."""

    def key(i: int) -> int:
        return int.from_bytes(blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()[:8], "big")

    return min(range(n), key=lambda i: (key(i), i))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(
    ("ids", "dtype", "m2"),
    [(FLOATS, pl.Float64, "2.500000"), (BOOLEANS, pl.Boolean, "false")],
    ids=["float", "boolean"],
)
def test_controls_on_float_and_boolean_row_ids_pass(
    ids, dtype, m2, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    bundle = _bundle(demo_bundle, tmp_path, ids, dtype)
    prereg = _prereg(tmp_path, m2)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    arm = tmp_path / "results" / "demo"
    names = sorted(
        {r["row_id"] for r in _rows(arm / "recompute" / "pandas" / "run1" / "cells.csv")}
    )
    # the rows as the contestants write them: six decimals, or true/false
    shown = {1.5: "1.500000", 2.5: "2.500000", 3.5: "3.500000", 4.5: "4.500000"}
    shown |= {True: "true", False: "false"}
    assert names == sorted(shown[v] for v in ids.values())
    for name in ("flip_m2_beta", "shift_seeded_alpha_cost"):
        control = arm / "controls" / name
        verdict = json.loads((control / "verdict.json").read_text(encoding="utf-8"))
        assert verdict["verdict"] == "pass", (name, verdict)
        assert {r["verdict"] for r in _rows(control / "check.csv")} == {"ok"}, name
        selection = json.loads((control / "selection.json").read_text(encoding="utf-8"))
        assert selection["row_id"] in names, selection  # a row as cells.csv names it
    flip = arm / "controls" / "flip_m2_beta"
    pred = {(r["column"], r["policy"]): r["after"] for r in _rows(flip / "prediction.csv")}
    assert pred == {
        ("average_score", "A"): "58.333333",
        ("average_score", "B"): "58.333333",
        ("beta_score", "A"): "50.000000",
        ("beta_score", "B"): "50.000000",
    }
    assert json.loads((flip / "selection.json").read_text(encoding="utf-8"))["row_id"] == m2
    # the seeded shift: the row the stream (seed 7, its label, d = 0: rows) puts first
    # among those with an alpha cost, in the order of their texts (demo/m3's are all
    # null), restated from controls/select.py's docstring; 0.5 added to one of its alpha
    # costs moves its mean by 0.5 / n, n its non-null costs (C) or all its alpha rows
    # (D: a null counts as 0), and average_cost by half that: demo/m1 7 of 8, demo/m2 3
    # of 3, demo/m4 4 of 4
    n = {"demo/m1": (7, 8), "demo/m2": (3, 3), "demo/m4": (4, 4)}
    text = {shown[v]: k for k, v in ids.items() if k in n}
    pool = sorted(text)
    row = text[pool[_seeded_first(7, "shift_seeded_alpha_cost", 0, len(pool))]]
    shift = arm / "controls" / "shift_seeded_alpha_cost"
    change = {
        (r["row_id"], r["column"], r["policy"]): r["change"]
        for r in _rows(shift / "prediction.csv")
    }
    c, d = (0.5 / x for x in n[row])
    assert change == {
        (shown[ids[row]], "alpha_cost", "C"): f"+{c:.6f}",
        (shown[ids[row]], "alpha_cost", "D"): f"+{d:.6f}",
        (shown[ids[row]], "average_cost", "C"): f"+{c / 2:.6f}",
        (shown[ids[row]], "average_cost", "D"): f"+{d / 2:.6f}",
    }
    # the disclosure's row, marked on the census's line of that row
    disclosed = {r["row_id"]: r["disclosed"] for r in _rows(arm / "census_rows.csv")}
    assert disclosed[m2].startswith("made up for the demo"), disclosed


# a single_value source of another kind than string, one value per row: the swap's
# prediction of that column is the row's value as the contestants write it
MODELS = {"demo/m1": 1.5, "demo/m2": 2.5, "demo/m3": 3.5, "demo/m4": 4.5}
MODEL_FLAGS = {"demo/m1": True, "demo/m2": False, "demo/m3": True, "demo/m4": False}


@pytest.mark.parametrize(
    ("models", "dtype", "shown"),
    [
        (MODELS, pl.Float64, {"demo/m1": "1.500000", "demo/m2": "2.500000"}),
        (MODEL_FLAGS, pl.Boolean, {"demo/m1": "true", "demo/m2": "false"}),
    ],
    ids=["float", "boolean"],
)
def test_a_swap_predicts_a_single_value_as_written(
    models, dtype, shown, impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """The demo's `model` column (single_value of the instances' `model`) read from a float
    or boolean source: swap_m1_m2 exchanges demo/m1's and demo/m2's instance rows, so the
    prediction says demo/m1's model becomes demo/m2's value and back, written as the
    contestants write a value of its kind (docs/contract.md, Values: six decimals, or
    true/false). The controls predicted `str` of the value (`1.5`, `True`), on no line of
    cells.csv: the swap failed on a correct bundle."""
    bundle = copy_bundle(demo_bundle, tmp_path / "bundle")
    path = bundle / "instances.parquet"
    table = pl.read_parquet(path)
    table.with_columns(
        pl.col("id").replace_strict(models, return_dtype=dtype).alias("model")
    ).write_parquet(path)
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    assert doc["columns"]["measured"]["model"] == {"recipe": "single_value", "source": "model"}
    swap = doc["controls"]["swap_m1_m2"]
    assert swap == {"kind": "swap", "target": {"row_ids": ["demo/m1", "demo/m2"]}}
    doc["controls"] = {"swap_m1_m2": swap}
    prereg = tmp_path / "demo-single-value.yaml"
    prereg.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 0, p.stderr[-3000:]
    arm = tmp_path / "results" / "demo"
    control = arm / "controls" / "swap_m1_m2"
    model = {
        r["row_id"]: (r["before"], r["after"])
        for r in _rows(control / "prediction.csv")
        if r["column"] == "model"
    }
    assert model == {
        "demo/m1": (shown["demo/m1"], shown["demo/m2"]),
        "demo/m2": (shown["demo/m2"], shown["demo/m1"]),
    }
    cells = {
        r["row_id"]: r["recomputed"]
        for r in _rows(arm / "recompute" / "pandas" / "run1" / "cells.csv")
        if r["column"] == "model"
    }
    assert {k: cells[k] for k in shown} == shown  # the contestants' text, as predicted
    verdict = json.loads((control / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["verdict"] == "pass", verdict
