"""Controls: predictions worked by hand, and a check that catches a wrong one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import blake3

from audit.cells.prereg import load_record
from controls.check import check
from tests.conftest import ROOT, read_csv_rows, run

PREREG = ROOT / "prereg" / "demo.yaml"


def _predict(control: str, bundle: Path, tmp: Path) -> tuple[list[dict[str, str]], dict]:
    import sys

    res = run(
        [
            sys.executable,
            "-m",
            "controls",
            "predict",
            "--kind",
            "leaderboard",
            "--prereg",
            str(PREREG),
            "--bundle",
            str(bundle),
            "--control",
            control,
            "--out",
            str(tmp / "controls"),
        ]
    )
    assert res.code == 0, res.stderr
    folder = tmp / "controls" / control  # <out>/<control>/, stamped as predicted
    for name in ("prediction.csv", "selection.json"):
        (tmp / {"prediction.csv": "p.csv", "selection.json": "s.json"}[name]).write_bytes(
            (folder / name).read_bytes()
        )
    return read_csv_rows(tmp / "p.csv"), json.loads((tmp / "s.json").read_text())


def test_flip_prediction_by_hand(demo_bundle: Path, tmp_path: Path) -> None:
    # demo/m2 beta: 7 of 10 resolved, no nulls. Flipping 2: 5 of 10.
    # A and B: 70 -> 50 (-20). average_score: (200/3 + 70)/2 = 68.333333 -> (200/3 + 50)/2
    # = 58.333333 (-10).
    rows, sel = _predict("flip_m2_beta", demo_bundle, tmp_path)
    got = {(r["column"], r["policy"]): (r["before"], r["after"], r["change"]) for r in rows}
    assert got == {
        ("beta_score", "A"): ("70.000000", "50.000000", "-20.000000"),
        ("beta_score", "B"): ("70.000000", "50.000000", "-20.000000"),
        ("average_score", "A"): ("68.333333", "58.333333", "-10.000000"),
        ("average_score", "B"): ("68.333333", "58.333333", "-10.000000"),
    }
    assert {r["row_id"] for r in rows} == {"demo/m2"}
    assert len(sel["instances"]) == 2 and all(k[1] == "beta" for k in sel["instances"])


def _stream_min(seed: int, label: str, d: int, n: int) -> int:
    keys = [
        int.from_bytes(blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()[:8], "big")
        for i in range(n)
    ]
    return min(range(n), key=lambda i: (keys[i], i))


def test_seeded_shift_prediction_by_hand(demo_bundle: Path, tmp_path: Path) -> None:
    # Rows with a non-null alpha cost, in id order: m1, m2, m4 (m3's are all null).
    # The stream (seed 7, label = control name, d = 0) picks one of them.
    pool = ["demo/m1", "demo/m2", "demo/m4"]
    row = pool[_stream_min(7, "shift_seeded_alpha_cost", 0, 3)]
    # +0.5 on one cost: C divides by the non-null count, D by all rows.
    counts = {"demo/m1": (7, 8), "demo/m2": (3, 3), "demo/m4": (4, 4)}[row]
    rows, sel = _predict("shift_seeded_alpha_cost", demo_bundle, tmp_path)
    assert sel["row_id"] == row
    got = {(r["column"], r["policy"]): r["change"] for r in rows}
    assert got[("alpha_cost", "C")] == f"+{0.5 / counts[0]:.6f}"
    assert got[("alpha_cost", "D")] == f"+{0.5 / counts[1]:.6f}"
    # average_cost: both groups have a cost under C and D for m1, m2, m4: half the change
    assert got[("average_cost", "C")] == f"+{0.5 / counts[0] / 2:.6f}"


def _cells(path: Path, lines: list[str]) -> Path:
    path.mkdir(parents=True)
    header = "row_id,column,kind,policy,published,recomputed,abs_diff,tier\n"
    (path / "cells.csv").write_text(header + "".join(x + "\n" for x in lines))
    (path / "census.csv").write_text("row_id,column,class,best_tier,policies,min_abs_diff\n")
    (path / "nulls.csv").write_text("column\n")
    return path


def test_check_passes_a_right_prediction_and_fails_a_wrong_one(tmp_path: Path) -> None:
    before = _cells(
        tmp_path / "before",
        [
            "r,s,measured,A,50.000000,50.000000,0.000000,0",
            "r,t,measured,A,1.000000,1.000000,0.000000,0",
        ],
    )
    after = _cells(
        tmp_path / "after",
        [
            "r,s,measured,A,50.000000,40.000000,10.000000,divergent",
            "r,t,measured,A,1.000000,1.000000,0.000000,0",
        ],
    )
    pred = tmp_path / "p.csv"

    def verdict(change: str, after_v: str) -> dict:
        pred.write_text(
            f"row_id,column,policy,before,after,change\nr,s,A,50.000000,{after_v},{change}\n"
        )
        return check(
            "c",
            "flip",
            {},
            str(pred),
            {"x": str(before)},
            {"x": str(after)},
            str(tmp_path / "c.csv"),
            str(tmp_path / "v.json"),
        )

    assert verdict("-10.000000", "40.000000")["verdict"] == "pass"
    wrong = verdict("-5.000000", "45.000000")
    assert wrong["verdict"] == "fail" and wrong["cells_ok"] == 0


def test_check_names_an_unpredicted_change(tmp_path: Path) -> None:
    before = _cells(
        tmp_path / "before",
        [
            "r,s,measured,A,50.000000,50.000000,0.000000,0",
            "r,t,measured,A,1.000000,1.000000,0.000000,0",
        ],
    )
    after = _cells(
        tmp_path / "after",
        [
            "r,s,measured,A,50.000000,40.000000,10.000000,divergent",
            "r,t,measured,A,1.000000,2.000000,1.000000,divergent",
        ],
    )
    pred = tmp_path / "p.csv"
    pred.write_text(
        "row_id,column,policy,before,after,change\nr,s,A,50.000000,40.000000,-10.000000\n"
    )
    v = check(
        "c",
        "flip",
        {},
        str(pred),
        {"x": str(before)},
        {"x": str(after)},
        str(tmp_path / "c.csv"),
        str(tmp_path / "v.json"),
    )
    assert v["verdict"] == "fail" and v["unpredicted"] == {"x": 1}
    assert "r,t,A" in (tmp_path / "c.csv").read_text().replace("|", ",")


def test_reorder_stream_keys_are_the_xof_read_big_endian() -> None:
    # Independent of the array/byteswap path: slice the extendable output by
    # hand. Its first 32 bytes are the ordinary digest (a BLAKE3 property).
    from controls import select

    n = 9
    label = b"7|reorder_invariant|reorder"
    xof = blake3.blake3(label).digest(length=8 * n)
    assert xof[:32] == blake3.blake3(label).digest()
    by_hand = [int.from_bytes(xof[8 * i : 8 * i + 8], "big") for i in range(n)]
    assert list(select.stream_keys(7, "reorder_invariant", n)) == by_hand
    assert by_hand[0] == int(blake3.blake3(label).hexdigest()[:16], 16)


def _perturb(control: str, bundle: Path, tmp: Path) -> Path:
    """Predict and build the perturbed bundle (no ledger: the functions, not the CLI)."""

    from controls.perturb import perturb

    _predict(control, bundle, tmp)
    doc = load_record(PREREG)
    perturb(doc, str(bundle), str(tmp / "s.json"), str(tmp / "bundle"))
    return tmp / "bundle" / "instances.parquet"


def test_reorder_deals_the_rows_in_the_streams_order(demo_bundle: Path, tmp_path: Path) -> None:
    import polars as pl

    from controls import select

    before = pl.read_parquet(demo_bundle / "instances.parquet")
    after = pl.read_parquet(_perturb("reorder_invariant", demo_bundle, tmp_path))
    keys = list(select.stream_keys(7, "reorder_invariant", before.height))
    expected = sorted(range(before.height), key=lambda i: (keys[i], i))
    assert expected != list(range(before.height))
    assert after.to_dicts() == [before.row(i, named=True) for i in expected]


def test_flip_changes_exactly_the_selected_instances(demo_bundle: Path, tmp_path: Path) -> None:
    import polars as pl

    before = pl.read_parquet(demo_bundle / "instances.parquet")
    after = pl.read_parquet(_perturb("flip_m2_beta", demo_bundle, tmp_path))
    sel = json.loads((tmp_path / "s.json").read_text())
    changed = [
        [str(b[c]) for c in ("id", "group", "instance_id")]  # the demo's instance key
        for b, a in zip(before.iter_rows(named=True), after.iter_rows(named=True), strict=True)
        if b != a
    ]
    assert sorted(changed) == sorted(sel["instances"])
    assert after.drop("resolved").equals(before.drop("resolved"))


def _stream_first(seed: int, label: str, d: int, items: list, k: int) -> list:
    """The first k items in the blake3 stream's order, recomputed here (controls/select.py)."""
    keys = [
        int.from_bytes(blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()[:8], "big")
        for i in range(len(items))
    ]
    return [items[i] for i in sorted(range(len(items)), key=lambda i: (keys[i], i))[:k]]


def test_nullify_score_prediction_by_hand(demo_bundle: Path, tmp_path: Path) -> None:
    # demo/m1 alpha: resolved T T T F F F F null (alpha-00..02 true). Two of the three
    # true values become null (chosen by the stream, seed 7, d = 1, among alpha-00..02).
    # A (null = failure): 1 of 8 = 12.5, from 37.5: falls by 100 * 2 / 8 = 25.
    # B (null leaves):    1 of 8 - 3 = 5 = 20.0, from 3/7 = 42.857143: -22.857143.
    # average_score with beta 50: A (12.5 + 50)/2 = 31.25 from 43.75; B (20 + 50)/2 = 35
    # from (300/7 + 50)/2 = 46.428571.
    rows, sel = _predict("nullify_m1_alpha_score", demo_bundle, tmp_path)
    got = {(r["column"], r["policy"]): (r["before"], r["after"], r["change"]) for r in rows}
    assert got == {
        ("alpha_score", "A"): ("37.500000", "12.500000", "-25.000000"),
        ("alpha_score", "B"): ("42.857143", "20.000000", "-22.857143"),
        ("average_score", "A"): ("43.750000", "31.250000", "-12.500000"),
        ("average_score", "B"): ("46.428571", "35.000000", "-11.428571"),
    }
    pool = [["demo/m1", "alpha", f"alpha-0{i}"] for i in range(3)]
    assert sel["instances"] == _stream_first(7, "nullify_m1_alpha_score", 1, pool, 2)
    assert (sel["kind"], sel["source"], sel["row_id"]) == ("nullify", "resolved", "demo/m1")


def test_nullify_cost_prediction_by_hand(demo_bundle: Path, tmp_path: Path) -> None:
    # demo/m4 alpha costs 1, 2, 3, 4 (alpha-00..03), no nulls; the stream picks one, x.
    # C (null left out): (10 - x) / 3; D (null = 0): (10 - x) / 4, from 2.5 under both.
    # average_cost with beta (0.2, null: C 0.2, D 0.1): C ((10 - x)/3 + 0.2)/2,
    # D ((10 - x)/4 + 0.1)/2.
    from decimal import Decimal
    from fractions import Fraction as F

    pool = [["demo/m4", "alpha", f"alpha-0{i}"] for i in range(4)]
    (chosen,) = _stream_first(7, "nullify_m4_alpha_cost", 1, pool, 1)
    x = F(int(chosen[2][-1]) + 1)
    c, d = (10 - x) / 3, (10 - x) / 4
    rows, sel = _predict("nullify_m4_alpha_cost", demo_bundle, tmp_path)
    assert sel["instances"] == [chosen]
    got = {(r["column"], r["policy"]): r["after"] for r in rows}

    def six(v: F) -> str:  # exact, rounded half to even to 6 decimals
        return f"{Decimal(round(v * 10**6)).scaleb(-6):.6f}"

    assert got == {
        ("alpha_cost", "C"): six(c),
        ("alpha_cost", "D"): six(d),
        ("average_cost", "C"): six((c + F(1, 5)) / 2),
        ("average_cost", "D"): six((d + F(1, 10)) / 2),
    }
    # the two policies move apart: C rises or falls with x against the mean, D always falls
    assert got[("alpha_cost", "C")] != got[("alpha_cost", "D")]


def test_nullify_sets_exactly_the_selected_values_to_null(
    demo_bundle: Path, tmp_path: Path
) -> None:
    import polars as pl

    before = pl.read_parquet(demo_bundle / "instances.parquet")
    after = pl.read_parquet(_perturb("nullify_m4_alpha_cost", demo_bundle, tmp_path))
    sel = json.loads((tmp_path / "s.json").read_text())
    key = ("id", "group", "instance_id")
    changed = [
        ([b[c] for c in key], a["cost"])
        for b, a in zip(before.iter_rows(named=True), after.iter_rows(named=True), strict=True)
        if b != a
    ]
    assert changed == [(sel["instances"][0], None)]
    assert after.schema == before.schema
    assert after.drop("cost").equals(before.drop("cost"))


def test_controls_of_one_run_each_start_from_the_unperturbed_table(
    demo_bundle: Path, tmp_path: Path
) -> None:
    """One run reads the instance table once for all its controls (controls.perturb.reader);
    each control still perturbs the table as read, not its predecessor's bundle: every
    bundle built in turn from the one reading is the bundle built from a reading of its own."""
    import polars as pl

    from controls.perturb import perturb, reader

    doc = load_record(PREREG)
    table = reader(doc, str(demo_bundle))
    for control in ("flip_m2_beta", "swap_m1_m2", "reorder_invariant", "shift_seeded_alpha_cost"):
        alone = _perturb(control, demo_bundle, tmp_path / control)
        shared = tmp_path / control / "shared"
        perturb(doc, str(demo_bundle), str(tmp_path / control / "s.json"), str(shared), table)
        assert pl.read_parquet(shared / "instances.parquet").equals(pl.read_parquet(alone))
    assert table().equals(pl.read_parquet(demo_bundle / "instances.parquet"))


def test_predictions_of_one_run_each_read_the_unperturbed_bundle(
    demo_bundle: Path, tmp_path: Path
) -> None:
    """One run reads the unperturbed bundle once for all its predictions
    (controls.exact.bundle_reader); each prediction is still the one a reading of its
    own gives (the CLI, one control at a time)."""

    from controls.exact import bundle_reader
    from controls.predict import predict, selection_json

    doc = load_record(PREREG)
    read = bundle_reader(str(demo_bundle), doc)
    for control in doc.controls:
        _predict(control, demo_bundle, tmp_path / control)
        table, selection = predict(doc, str(demo_bundle), control, read)
        assert table == (tmp_path / control / "p.csv").read_text()
        assert selection_json(selection) == (tmp_path / control / "s.json").read_text()


def test_an_instance_key_stored_as_seconds_is_chosen_and_written_back_as_stored(
    impl_envs, demo_bundle: Path, tmp_path: Path
) -> None:
    """The demo keyed by n, an integer written as an Arrow duration in seconds (a plain
    INT64 in the file: docs/contract.md, Types), n the row's index but row 1's 2**62
    (tests/test_preflight_values.py: polars reads 0 and 2**62 there alike, as
    milliseconds, times 1000, wrapping past 64 bits). The controls read n as the integers
    stored: flip_m2_beta chooses 2 of demo/m2's beta rows by their n as stored (the
    demo's rows 12-24 are demo/m2's; which are beta is read from the plain group
    column), and every perturbed table holds n as those integers, an INT64 polars reads
    as one (no duration): the flip's unchanged but for resolved, the reorder's in the
    stream's order (as test_reorder_deals_the_rows_in_the_streams_order works it out).
    Before, the controls chose keys by polars' durations (texts like 0:00:12) and wrote
    n back in milliseconds, every value times 1000, rows 0 and 1 both 0: a perturbed
    bundle both contestants refuse as duplicate_key."""
    import polars as pl

    from controls import select
    from controls.perturb import perturb
    from controls.predict import predict
    from tests.test_preflight_values import WRAPS, _seconds_prereg, _with_seconds

    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    _with_seconds(bundle, {1: WRAPS})
    doc = load_record(_seconds_prereg(tmp_path, key=True))
    plain = pl.read_parquet(demo_bundle / "instances.parquet")
    stored = [WRAPS if i == 1 else i for i in range(plain.height)]
    m2_beta = [
        [str(i)]
        for i, (row, group) in enumerate(plain.select("id", "group").iter_rows())
        if row == "demo/m2" and group == "beta"
    ]
    assert m2_beta and all(12 <= int(k[0]) <= 24 for k in m2_beta)
    for control in ("flip_m2_beta", "reorder_invariant"):
        _, sel = predict(doc, str(bundle), control)
        (tmp_path / f"{control}.json").write_text(json.dumps(sel))
        perturb(doc, str(bundle), str(tmp_path / f"{control}.json"), str(tmp_path / control))
        after = pl.read_parquet(tmp_path / control / "instances.parquet")
        assert after.schema["n"] == pl.Int64
        if control == "flip_m2_beta":
            assert len(sel["instances"]) == 2 and all(k in m2_beta for k in sel["instances"])
            assert after["n"].to_list() == stored
            changed = [str(n) for n, r, b in zip(stored, after["resolved"], plain["resolved"],
                                                  strict=True) if r != b]  # fmt: skip
            assert sorted(changed) == sorted(k[0] for k in sel["instances"])
        else:
            keys = list(select.stream_keys(7, "reorder_invariant", plain.height))
            order = sorted(range(plain.height), key=lambda i: (keys[i], i))
            assert after["n"].to_list() == [stored[i] for i in order]
