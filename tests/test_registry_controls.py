"""Registry controls (docs/controls.md): predictions worked by hand on a small registry
table under the SkillsBench prereg's policies E and S, the perturbed table, and the
prereg's refusals of what a registry cannot take."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import blake3
import polars as pl
import pytest
import yaml

from audit.errors import AuditError
from audit.trials.prereg import load
from audit.trials.record import Prereg, parse
from controls import sources
from controls.errors import ControlError
from controls.trials_perturb import perturb
from tests.conftest import ROOT

PREREG = ROOT / "prereg" / "skillsbench-registry.yaml"
# entry m|c: t1 5/5 all pass (score 100); t2 1 of 3 perfect (score 33.3: E takes 1/3,
# |33.3 - 100/3| <= 0.05; S takes 0.333); t3 2 passed, 1 perfect of 3 (score 50: rounded
# under both, 0.5; pass share 1/3); t4 4/4 all pass. Entry m|d: one task, nothing passed.
ROWS = [
    ("m", "c", "t1", 100.0, 5, 5, 5),
    ("m", "c", "t2", 33.3, 3, 1, 1),
    ("m", "c", "t3", 50.0, 3, 2, 1),
    ("m", "c", "t4", 100.0, 4, 4, 4),
    ("m", "d", "t1", 0.0, 2, 0, 0),
]


def _table(tmp: Path) -> Path:
    frame = pl.DataFrame(
        [
            {"model": m, "harness": "h", "condition": c, "task": t, "score": s,
             "trials": n, "passCount": p, "perfectCount": q}
            for m, c, t, s, n, p, q in ROWS
        ],
        schema={"model": pl.String, "harness": pl.String, "condition": pl.String,
                "task": pl.String, "score": pl.Float64, "trials": pl.Int64,
                "passCount": pl.Int64, "perfectCount": pl.Int64},
    )  # fmt: skip
    frame.write_parquet(tmp / "registry.parquet")
    return tmp / "registry.parquet"


def _doc(**controls) -> dict:
    doc = yaml.safe_load(PREREG.read_text(encoding="utf-8"))
    doc["controls"] = controls
    return doc


def _rec(**controls) -> Prereg:
    """The registry prereg with these controls, as its record."""
    return parse(_doc(**controls), str(PREREG))


def _predicted(doc: Prereg, tmp: Path, name: str) -> tuple[dict, dict]:
    text, sel = sources.predict(doc, sources.read_rows(doc, _table(tmp)), name)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["entry"] for r in rows} == {sel["entry"]}
    return {(r["policy"], r["measure"]): (r["before"], r["after"]) for r in rows}, sel


def _first(seed: int, label: str, d: int, items: list, k: int) -> list:
    """controls/select.py's stream, recomputed here."""
    keys = [
        int.from_bytes(blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()[:8], "big")
        for i in range(len(items))
    ]
    return [items[i] for i in sorted(range(len(items)), key=lambda i: (keys[i], i))[:k]]


def test_flip_by_hand(tmp_path: Path) -> None:
    # m|c's all-pass cells are t1 and t4; flipping one makes its mean 0 under E and S.
    # E: 100 * (1 + 1/3 + 1/2 + 1)/4 = 100 * 17/24 = 70.833333 -> 100 * (11/6)/4 = 45.833333
    # S: 100 * (1 + 0.333 + 0.5 + 1)/4 = 70.825 -> 100 * 1.833/4 = 45.825
    # pass shares (perfect/trials) 1, 1/3, 1/3, 1: 66.666667 -> 100 * (5/3)/4 = 41.666667
    doc = _rec(f={"kind": "flip", "target": {"entry": "m|c"}, "size": 1})
    got, sel = _predicted(doc, tmp_path, "f")
    assert sel["tasks"] == _first(doc.seed, "f", 1, [["t1"], ["t4"]], 1)
    assert got[("E", "reward_macro")] == ("70.833333", "45.833333")
    assert got[("S", "reward_macro")] == ("70.825000", "45.825000")
    assert got[("E", "pass_macro")] == ("66.666667", "41.666667")
    assert got[("S", "pass_macro")] == ("66.666667", "41.666667")
    assert got[("E", "tasks")] == ("4", "4")


def test_drop_by_hand(tmp_path: Path) -> None:
    # One of m|c's four task rows, chosen by the stream (d = 1), leaves three tasks.
    # drop t1 or t4: E 100 * (11/6)/3 = 61.111111, S 100 * 1.833/3 = 61.1, pass 55.555556;
    # drop t2: E = S = 100 * 2.5/3 = 83.333333, pass 100 * (7/3)/3 = 77.777778;
    # drop t3: E 100 * (7/3)/3 = 77.777778, S 100 * 2.333/3 = 77.766667, pass 77.777778.
    expected = {
        "t1": ("61.111111", "61.100000", "55.555556"),
        "t2": ("83.333333", "83.333333", "77.777778"),
        "t3": ("77.777778", "77.766667", "77.777778"),
        "t4": ("61.111111", "61.100000", "55.555556"),
    }
    doc = _rec(d={"kind": "drop", "target": "seeded"})
    got, sel = _predicted(doc, tmp_path, "d")
    # seeded: m|d has one task (dropping it would leave the entry out), so only m|c
    assert sel["entry"] == "m|c"
    ((task,),) = sel["tasks"]
    assert sel["tasks"] == _first(doc.seed, "d", 1, [["t1"], ["t2"], ["t3"], ["t4"]], 1)
    e, s, p = expected[task]
    assert got[("E", "tasks")] == ("4", "3")
    assert got[("E", "reward_macro")] == ("70.833333", e)
    assert got[("S", "reward_macro")] == ("70.825000", s)
    assert got[("E", "pass_macro")] == ("66.666667", p)


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ({"kind": "flip", "target": {"entry": "m|c"}, "size": 3}, "cannot take"),  # 2 all-pass
        ({"kind": "flip", "target": {"entry": "m|d"}, "size": 1}, "cannot take"),
        ({"kind": "drop", "target": {"entry": "m|d"}}, "cannot take"),  # its only task
        ({"kind": "drop", "target": {"entry": "x|y"}}, "not in the registry table"),
    ],
)
def test_an_entry_that_cannot_take_the_control_is_refused(tmp_path: Path, spec, why) -> None:
    with pytest.raises(ControlError, match=why):
        _predicted(_rec(c=spec), tmp_path, "c")


def test_perturbed_registry_is_the_predicted_edit(tmp_path: Path) -> None:
    doc = _rec(f={"kind": "flip", "target": {"entry": "m|c"}, "size": 2})
    _, sel = _predicted(doc, tmp_path, "f")
    (tmp_path / "s.json").write_text(json.dumps(sel))
    assert doc.leaderboard is not None
    board = tmp_path / doc.leaderboard.table
    board.write_bytes(b"board")  # copied beside the perturbed table, byte for byte
    out = perturb(doc, str(tmp_path / "registry.parquet"), str(tmp_path / "s.json"),
                  str(tmp_path / "out"))  # fmt: skip
    assert (tmp_path / "out" / board.name).read_bytes() == b"board"
    before = pl.read_parquet(tmp_path / "registry.parquet")
    after = pl.read_parquet(out[-1])
    assert after.schema == before.schema and after.height == before.height
    # t1 and t4 of m|c now every trial failed; every other cell and column as shipped
    changed = after.filter(pl.col("passCount") != before["passCount"])
    assert changed.select("condition", "task", "score", "perfectCount").rows() == [
        ("c", "t1", 0.0, 0),
        ("c", "t4", 0.0, 0),
    ]
    assert after.drop("score", "passCount", "perfectCount").equals(
        before.drop("score", "passCount", "perfectCount")
    )


_AS_DURATIONS = """
import sys
import pyarrow as pa, pyarrow.parquet as pq
table = pq.read_table(sys.argv[1])
for name in ("trials", "passCount", "perfectCount"):
    at = table.column_names.index(name)
    table = table.set_column(at, name, table.column(name).cast(pa.duration(sys.argv[2])))
pq.write_table(table, sys.argv[1])
"""


@pytest.mark.parametrize("unit", ["s", "us"])
def test_counts_written_as_durations_are_predicted_and_perturbed_as_stored(
    unit, impl_envs, tmp_path: Path
) -> None:
    """The small registry's counts written by pyarrow as Arrow durations (plain INT64s
    in the file, integers: docs/contract.md, Types), which preflight passes: the
    controls predict flip f as from the plain table (test_flip_by_hand's values, by
    hand) and the perturbed table holds the integers stored, t1 and t4 of m|c failed
    (passCount = perfectCount = 0, trials 5 and 4 kept). The controls read the counts
    as polars' durations (a Fraction of time spans: a TypeError, after the lock), and
    would have written a duration in seconds back in milliseconds, each value times
    1000."""
    from tests.conftest import impl_python, run

    doc = _rec(f={"kind": "flip", "target": {"entry": "m|c"}, "size": 2})
    plain, sel = _predicted(doc, tmp_path, "f")
    res = run(
        [str(impl_python("pyarrow")), "-c", _AS_DURATIONS, str(tmp_path / "registry.parquet"), unit]
    )
    assert res.code == 0, res.stderr
    table = tmp_path / "registry.parquet"
    assert pl.read_parquet_schema(table)["trials"] == pl.Duration("ms" if unit == "s" else unit)
    text, got = sources.predict(doc, sources.read_rows(doc, table), "f")
    assert got == sel
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {(r["policy"], r["measure"]): (r["before"], r["after"]) for r in rows} == plain
    assert plain[("E", "reward_macro")][0] == "70.833333"  # 100 * 17/24, test_flip_by_hand
    (tmp_path / "s.json").write_text(json.dumps(sel))
    assert doc.leaderboard is not None
    (tmp_path / doc.leaderboard.table).write_bytes(b"board")
    out = perturb(doc, str(table), str(tmp_path / "s.json"), str(tmp_path / "out"))
    after = pl.read_parquet(out[-1])
    assert after.select("condition", "task", "trials", "passCount", "perfectCount").rows() == [
        ("c", "t1", 5, 0, 0),
        ("c", "t2", 3, 1, 1),
        ("c", "t3", 3, 2, 1),
        ("c", "t4", 4, 0, 0),
        ("d", "t1", 2, 0, 0),
    ]


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ({"kind": "duplicate", "target": "seeded"}, "no trial copies"),
        ({"kind": "reorder_starts", "target": "seeded"}, "no start times"),
        ({"kind": "drop", "target": {"run": "r"}}, "targets an entry"),
    ],
)
def test_registry_prereg_refuses_what_a_registry_cannot_take(tmp_path: Path, spec, why) -> None:
    p = tmp_path / "p.yaml"
    p.write_text(yaml.safe_dump(_doc(c=spec)), encoding="utf-8")
    with pytest.raises(AuditError, match=why) as e:
        load(p)
    assert e.value.kind == "bad_prereg"


def test_trial_prereg_refuses_an_entry_target(tmp_path: Path) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"))
    doc["controls"] = {"c": {"kind": "drop", "target": {"entry": "skills"}}}
    p = tmp_path / "p.yaml"
    p.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(AuditError, match="targets a run") as e:
        load(p)
    assert e.value.kind == "bad_prereg"


def test_summary_names_the_entry_and_escapes_its_bar(tmp_path: Path) -> None:
    import re

    from controls.summary import summarise

    sel = {"control": "f", "kind": "flip", "size": 1, "entry": "m|c", "tasks": [["t1"]]}
    verdict = {"control": "f", "kind": "flip", "selection": sel, "cells_predicted": 1,
               "cells_ok": 1, "unpredicted": {"x": 0}, "class_changes": {"x": []},
               "contestants_identical": True, "verdict": "pass", "reasons": []}  # fmt: skip
    (tmp_path / "v.json").write_text(json.dumps(verdict))
    (tmp_path / "check.csv").write_text(
        "control,entry,policy,measure,predicted_before,predicted_after,predicted_change,"
        "x_after,verdict\nf,m|c,E,reward_macro,70.833333,45.833333,-25.000000,45.833333,ok\n"
    )
    doc = _doc(f={"kind": "flip", "target": {"entry": "m|c"}, "size": 1})
    doc["disclosure"] = {"auditor": "a", "relations": [{"row": "m|c", "relation": "r"}],
                         "publication": "p"}  # fmt: skip
    summarise([str(tmp_path / "v.json")], [str(tmp_path / "check.csv")], parse(doc, "p.yaml"),
              str(tmp_path / "c.csv"), str(tmp_path / "c.md"))  # fmt: skip
    md = (tmp_path / "c.md").read_text()
    assert "| f | flip | m\\|c (1 task(s)) |" in md
    # the entry is a row the disclosure names: the control is named with its relation
    assert "On a disclosed row (the prereg named the target): f on m|c: r." in md
    # every table line has as many unescaped bars as its header: 8 (7 columns), 9 (8)
    bars = [len(re.findall(r"(?<!\\)\|", ln)) for ln in md.splitlines() if ln.startswith("|")]
    assert bars == [8, 8, 8, 9, 9, 9]
