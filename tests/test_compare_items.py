"""compare-items: the first divergent boundary between two runs' per-item records.

The worked example (issue 18): items J01..J04 with targets A, B, A, B. Harness X
predicts A, A, A, B; harness Y predicts B, B, A, B, and ships its rows in another
order. By hand: X is right on J01, J03, J04 (3/4), Y on J02, J03, J04 (3/4); the
predictions agree on J03 and J04 (2/4); only X is right on J01, only Y on J02, both
on J03 and J04, neither on none. The task inputs are the same bytes on both sides, so
J01 and J02 first differ at the extracted answer, and J03, J04 at no recorded
boundary. X records its raw output and Y does not, so `output` can only be assumed
(side B) for every item; neither records prompt or token ids (both).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from tests.conftest import run_audit

TARGETS = {"J01": "A", "J02": "B", "J03": "A", "J04": "B"}
X = {"J01": "A", "J02": "A", "J03": "A", "J04": "B"}
Y = {"J01": "B", "J02": "B", "J03": "A", "J04": "B"}


def _rows(pred: dict[str, str], order: list[str], with_output: bool) -> list[dict]:
    rows = []
    for item in order:
        row = {
            "item_id": item,
            "input": f"question {item}",
            "answer": pred[item],
            "score": pred[item] == TARGETS[item],
        }
        if with_output:
            row["output"] = f"The answer is {pred[item]}."
        rows.append(row)
    return rows


def _write(tmp: Path) -> tuple[Path, Path]:
    a, b = tmp / "x.parquet", tmp / "y.jsonl"
    pl.DataFrame(_rows(X, sorted(X), True)).write_parquet(a)
    pl.DataFrame(_rows(Y, ["J03", "J01", "J04", "J02"], False)).write_ndjson(b)
    return a, b


def test_worked_example_two_harnesses_of_equal_accuracy(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    res = run_audit("compare-items", a, b, "--out", tmp_path / "out")
    assert res.code == 0, res.stderr
    summary = json.loads((tmp_path / "out" / "compare-items.json").read_text())
    assert summary["items"] == 4
    assert summary["first_boundary"] == {
        "input": 0,
        "prompt": 0,
        "tokens": 0,
        "output": 0,
        "answer": 2,
        "score": 0,
        "included": 0,
        "none": 2,
    }
    assert summary["answers_agree"] == 2
    assert summary["paired"] == {
        "both_right": 2,
        "only_a": 1,
        "only_b": 1,
        "both_wrong": 0,
        "right_a": 3,
        "right_b": 3,
    }
    # Walked up to the first divergence: prompt/tokens unrecorded on both sides for all
    # four items, output unrecorded by B; `included` is reached only by J03 and J04.
    assert summary["assumed"] == {
        "prompt": {"both": 4},
        "tokens": {"both": 4},
        "output": {"B": 4},
        "included": {"both": 2},
    }
    items = pl.read_csv(tmp_path / "out" / "items.csv").rows()
    assert [(i, f) for i, f, _ in items] == [
        ("J01", "answer"),
        ("J02", "answer"),
        ("J03", "none"),
        ("J04", "none"),
    ]
    assert "only A 1, only B 1" in res.stdout


def test_a_differing_input_is_the_first_boundary_even_when_answers_agree(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    rows = _rows(Y, sorted(Y), False)
    rows[2]["input"] = "question J03 "  # one trailing space: other bytes
    pl.DataFrame(rows).write_ndjson(b)
    res = run_audit("compare-items", a, b, "--out", tmp_path / "out")
    assert res.code == 0, res.stderr
    summary = json.loads((tmp_path / "out" / "compare-items.json").read_text())
    assert summary["first_boundary"]["input"] == 1
    assert summary["first_boundary"]["none"] == 1


def test_declared_boundaries_name_their_columns(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    res = run_audit(
        "compare-items", a, b, "--boundaries", "extracted=answer,score", "--out", tmp_path / "o"
    )
    assert res.code == 0, res.stderr
    summary = json.loads((tmp_path / "o" / "compare-items.json").read_text())
    assert summary["first_boundary"] == {"extracted": 2, "score": 0, "none": 2}
    assert summary["assumed"] == {}
    # Correctness is read from the boundary named score; agreement of answers from the
    # one named answer, which this order does not declare.
    assert summary["paired"]["only_a"] == 1
    assert summary["answers_agree"] is None


def _refused(tmp: Path, a: Path, b: Path, kind: str, *names: str) -> None:
    res = run_audit("compare-items", a, b, "--out", tmp / "out")
    assert res.code == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(f"error[{kind}]:"), res.stderr
    for name in names:
        assert name in res.stderr
    assert not (tmp / "out").exists()


def test_a_missing_item_is_refused_naming_it(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    pl.DataFrame(_rows(Y, ["J01", "J03", "J04"], False)).write_ndjson(b)
    _refused(tmp_path, a, b, "missing_item", "J02")


def test_a_duplicated_item_is_refused_naming_it(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    pl.DataFrame(_rows(Y, ["J01", "J02", "J03", "J04", "J02"], False)).write_ndjson(b)
    _refused(tmp_path, a, b, "duplicate_id", "J02")


def test_an_unexpected_item_is_refused_naming_it(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    rows = _rows(Y, sorted(Y), False) + [
        {"item_id": "J05", "input": "question J05", "answer": "A", "score": True}
    ]
    pl.DataFrame(rows).write_ndjson(b)
    _refused(tmp_path, a, b, "unexpected_item", "J05")


def test_an_empty_table_is_refused(tmp_path: Path) -> None:
    a, b = _write(tmp_path)
    b.write_text("")
    res = run_audit("compare-items", a, b)
    assert res.code == 2 and res.stderr.startswith("error["), res.stderr
