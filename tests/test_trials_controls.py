"""Trial-level controls (docs/controls.md): predictions worked by hand on a small trial
table, the perturbed table, and a check that fails a wrong prediction."""

from __future__ import annotations

import copy
import csv
import io
from pathlib import Path

import blake3
import polars as pl
import pytest
import yaml

from audit.trials.record import Prereg, parse
from controls.errors import ControlError
from controls.trials_check import check
from controls.trials_perturb import perturb
from controls.trials_predict import predict
from tests.conftest import ROOT

T = "2026-01-01T00:00:0{}.000000Z"
# run r: task a has rewards 1, 1, 0 started at seconds 1, 2, 3; task b has 0.5 (s1),
# an errored trial (s2) and 0.0 (s3). Run q: one task c, reward 1.0. No copies.
ROWS = [
    ("r", "a", "a1", "scored", 1.0, T.format(1)),
    ("r", "a", "a2", "scored", 1.0, T.format(2)),
    ("r", "a", "a3", "scored", 0.0, T.format(3)),
    ("r", "b", "b1", "scored", 0.5, T.format(1)),
    ("r", "b", "b2", "errored", None, T.format(2)),
    ("r", "b", "b3", "scored", 0.0, T.format(3)),
    ("q", "c", "c1", "scored", 1.0, T.format(1)),
]
POLICIES = {
    "first1": {"select": "earliest", "k": 1, "copies": "drop", "errored": "zero",
               "unscored": "zero", "empty_slots": "ignore", "slots": None, "description": "x"},
    "last1": {"select": "latest", "k": 1, "copies": "drop", "errored": "zero",
              "unscored": "zero", "empty_slots": "ignore", "slots": None, "description": "x"},
    "keep": {"select": "all", "k": None, "copies": "keep", "errored": "zero",
             "unscored": "zero", "empty_slots": "ignore", "slots": None, "description": "x"},
}  # fmt: skip


def _table(tmp: Path) -> Path:
    frame = pl.DataFrame(
        [
            {"run": r, "task": t, "trial_id": i, "copy": 0, "folder": f"{r}/{i}",
             "status": s, "reward": w, "started_at": at}
            for r, t, i, s, w, at in ROWS
        ],
        schema={"run": pl.String, "task": pl.String, "trial_id": pl.String, "copy": pl.Int64,
                "folder": pl.String, "status": pl.String, "reward": pl.Float64,
                "started_at": pl.String},
    )  # fmt: skip
    frame.write_parquet(tmp / "trials.parquet")
    return tmp / "trials.parquet"


def _doc(**controls) -> Prereg:
    """The Benchflow sample's prereg with these policies and controls, as its record."""
    doc = yaml.safe_load((ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8"))
    doc["policies"] = copy.deepcopy(POLICIES)
    doc["controls"] = controls
    return parse(doc, "benchflow-sample.yaml")


def _predicted(doc: Prereg, tmp: Path, name: str) -> tuple[dict, dict]:
    from controls.trials_exact import read_rows

    text, sel = predict(doc, read_rows(_table(tmp)), name)
    rows = list(csv.DictReader(io.StringIO(text)))
    return {(r["policy"], r["measure"]): (r["before"], r["after"]) for r in rows}, sel


def _first(seed: int, label: str, d: int, items: list, k: int) -> list:
    """controls/select.py's stream, recomputed here."""
    keys = [
        int.from_bytes(blake3.blake3(f"{seed}|{label}|{d}|{i}".encode()).digest()[:8], "big")
        for i in range(len(items))
    ]
    return [items[i] for i in sorted(range(len(items)), key=lambda i: (keys[i], i))[:k]]


def test_flip_by_hand(tmp_path: Path) -> None:
    # r's reward-1.0 trials are a1 and a2: flipping both gives a rewards 0, 0, 0.
    # attempted: a 2/3 -> 0, b (0.5 + 0 + 0)/3 = 1/6: macro 100 * (2/3 + 1/6)/2 = 41.666667
    # -> 100 * (1/6)/2 = 8.333333; pass share a 2/3 -> 0, b 0: 33.333333 -> 0.
    # first1 takes a1 (1 -> 0) and b1 (0.5): 75 -> 25; last1 takes a3 and b3: 0 both times.
    # scored drops b2: b (0.5 + 0)/2 = 1/4: 100 * (2/3 + 1/4)/2 = 45.833333 -> 12.5.
    doc = _doc(f={"kind": "flip", "target": {"run": "r"}, "size": 2})
    got, sel = _predicted(doc, tmp_path, "f")
    assert sorted(sel["trials"]) == [["a", "a1"], ["a", "a2"]]
    assert got[("attempted", "reward_macro")] == ("41.666667", "8.333333")
    assert got[("attempted", "pass_macro")] == ("33.333333", "0.000000")
    assert got[("first1", "reward_macro")] == ("75.000000", "25.000000")
    assert got[("last1", "reward_macro")] == ("0.000000", "0.000000")
    assert got[("scored", "reward_macro")] == ("45.833333", "12.500000")
    assert got[("attempted", "tasks")] == ("2", "2")


def test_drop_by_hand(tmp_path: Path) -> None:
    # q has one trial: dropping it leaves q with no task (tasks 1 -> 0, macro no data);
    # the run is q because it is named. r is untouched and not predicted.
    doc = _doc(d={"kind": "drop", "target": {"run": "q"}})
    got, sel = _predicted(doc, tmp_path, "d")
    assert sel["trials"] == [["c", "c1"]]
    assert got[("attempted", "tasks")] == ("1", "0")
    assert got[("attempted", "reward_macro")] == ("100.000000", "")
    assert {p for p, _ in got} == {"attempted", "scored", "first1", "last1", "keep"}


def test_duplicate_moves_only_the_policy_that_keeps_copies(tmp_path: Path) -> None:
    # One of r's six trials, chosen by the stream (seed, name, d = 1) among (task, id)
    # in code point order, gets a copy: under copies: keep its task mean counts it twice;
    # every copies: drop policy is unchanged.
    doc = _doc(u={"kind": "duplicate", "target": {"run": "r"}})
    pool = [["a", "a1"], ["a", "a2"], ["a", "a3"], ["b", "b1"], ["b", "b2"], ["b", "b3"]]
    (chosen,) = _first(doc.seed, "u", 1, pool, 1)
    value = {"a1": 1, "a2": 1, "a3": 0, "b1": 0.5, "b2": 0, "b3": 0}[chosen[1]]
    a, b = [1, 1, 0], [0.5, 0, 0]
    (a if chosen[0] == "a" else b).append(value)
    macro = 100 * (sum(a) / len(a) + sum(b) / len(b)) / 2
    got, sel = _predicted(doc, tmp_path, "u")
    assert sel["trials"] == [chosen]
    assert got[("keep", "reward_macro")] == ("41.666667", f"{macro:.6f}")
    for pol in ("attempted", "scored", "first1", "last1"):
        before, after = got[(pol, "reward_macro")]
        assert before == after, pol


def test_duplicate_takes_only_a_trial_whose_copy_moves_its_task(tmp_path: Path) -> None:
    # q's one task c has one trial (1.0): a second copy of it leaves c's mean 1 under any
    # copy rule, so q cannot take the control. In r every trial's value differs from its
    # task's mean (a: 1, 1, 0 against 2/3; b: 0.5, errored = 0, 0 against 1/6): the pool
    # is all six, as in the test above.
    doc = _doc(u={"kind": "duplicate", "target": {"run": "q"}})
    with pytest.raises(ControlError, match="cannot take this perturbation"):
        _predicted(doc, tmp_path, "u")
    # seeded: the stream (d = 0) chooses among the runs that can take it, r only
    doc = _doc(u={"kind": "duplicate", "target": "seeded"})
    _, sel = _predicted(doc, tmp_path, "u")
    assert sel["run"] == "r"


def test_reorder_starts_swaps_earliest_and_latest(tmp_path: Path) -> None:
    # Reversing a task's start times makes its earliest trial the latest. Task a
    # (1, 1, 0): first1 1 -> 0, last1 0 -> 1; task b (0.5, err = 0, 0): first1 0.5 -> 0,
    # last1 0 -> 0.5. Both tasks move, so the stream picks one of [a], [b].
    doc = _doc(o={"kind": "reorder_starts", "target": {"run": "r"}})
    (task,) = _first(doc.seed, "o", 1, [["a"], ["b"]], 1)[0]
    got, sel = _predicted(doc, tmp_path, "o")
    assert sel["task"] == task
    first = {"a": ("75.000000", "25.000000"), "b": ("75.000000", "50.000000")}[task]
    last = {"a": ("0.000000", "50.000000"), "b": ("0.000000", "25.000000")}[task]
    assert got[("first1", "reward_macro")] == first
    assert got[("last1", "reward_macro")] == last
    assert got[("attempted", "reward_macro")][0] == got[("attempted", "reward_macro")][1]


def test_reorder_refuses_a_run_where_order_changes_nothing(tmp_path: Path) -> None:
    doc = _doc(o={"kind": "reorder_starts", "target": {"run": "q"}})  # one trial per task
    with pytest.raises(ControlError, match="cannot take this perturbation"):
        _predicted(doc, tmp_path, "o")


def test_perturbed_table_is_the_predicted_edit(tmp_path: Path) -> None:
    import json

    doc = _doc(u={"kind": "duplicate", "target": {"run": "r"}})
    _, sel = _predicted(doc, tmp_path, "u")
    (tmp_path / "s.json").write_text(json.dumps(sel))
    (out,) = perturb(doc, str(tmp_path / "trials.parquet"), str(tmp_path / "s.json"),
                     str(tmp_path / "out"))  # fmt: skip
    before = pl.read_parquet(tmp_path / "trials.parquet")
    after = pl.read_parquet(out)
    assert after.schema == before.schema and after.height == before.height + 1
    new = after.filter(pl.col("copy") == 1)
    assert new.select("run", "task", "trial_id").row(0) == ("r", *sel["trials"][0])
    old = before.filter(pl.col("trial_id") == sel["trials"][0][1])
    assert new.drop("copy", "folder").equals(old.drop("copy", "folder"))


def _entries(path: Path, lines: list[str]) -> Path:
    path.mkdir(parents=True)
    head = "entry,policy,tasks,reward_macro,pass_macro"
    (path / "entries.csv").write_text("\n".join([head, *lines]) + "\n")
    (path / "tasks.csv").write_text("entry,policy,task,reward_mean\n")
    return path


def test_check_fails_a_wrong_prediction_and_an_unpredicted_change(tmp_path: Path) -> None:
    pred = tmp_path / "p.csv"
    pred.write_text(
        "entry,policy,measure,before,after,change\n"
        "r,attempted,reward_macro,50.000000,40.000000,-10.000000\n"
    )
    sel = {"control": "c", "kind": "flip", "run": "r", "trials": [["a", "a1"]]}
    before = _entries(tmp_path / "b", ["q,attempted,1,1.0,1.0", "r,attempted,2,50.0,50.0"])
    right = _entries(tmp_path / "ok", ["q,attempted,1,1.0,1.0", "r,attempted,2,40.0,40.0"])
    wrong = _entries(tmp_path / "bad", ["q,attempted,1,0.5,1.0", "r,attempted,2,45.0,40.0"])
    v = check(sel, str(pred), {"x": str(before)}, {"x": str(right)},
              str(tmp_path / "c1.csv"), str(tmp_path / "v1.json"))  # fmt: skip
    assert v["verdict"] == "pass", v["reasons"]
    v = check(sel, str(pred), {"x": str(before)}, {"x": str(wrong)},
              str(tmp_path / "c2.csv"), str(tmp_path / "v2.json"))  # fmt: skip
    assert v["verdict"] == "fail"
    assert v["reasons"] == [
        "1 predicted value(s) not measured as predicted",
        "x: 1 unpredicted change(s)",
    ]
