"""The prereg's disclosure (docs/contract.md, Disclosure): refused at the lock when it names
a row the leaderboard does not have (trials v1 here; cells v1 in tests/conformance/),
disclosed rows marked in census_rows.csv, and controls on them named in controls.csv/md.
The demo run's certificate and report: tests/test_pipeline.py."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.cells.census import rows_csv
from audit.cells.record import parse
from audit.core import disclosure
from audit.errors import AuditError
from audit.files import file_blake3
from audit.lock.shared import read_prereg
from audit.lock.trials import lock as trials_lock
from controls.summary import summarise
from tests.conftest import ROOT, read_csv_rows

SKILLSBENCH = ROOT.parent / "shared" / "bundles" / "skillsbench-registry"


def _trials_prereg(tmp_path: Path, relations: list[dict[str, str]]) -> Path:
    doc = yaml.safe_load((ROOT / "prereg" / "skillsbench-registry.yaml").read_text())
    doc["disclosure"]["relations"] = relations
    path = tmp_path / "prereg.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


@pytest.mark.skipif(not SKILLSBENCH.is_dir(), reason=f"{SKILLSBENCH} is not present")
def test_trials_lock_refuses_a_relation_to_no_row_and_writes_nothing(tmp_path: Path) -> None:
    # the row id of a two-column row_key is the values joined by "|" (trials contract 4):
    # "Codex (GPT-5.5)" alone is the model, not a row
    prereg = _trials_prereg(tmp_path, [{"row": "Codex (GPT-5.5)", "relation": "ours"}])
    out = tmp_path / "lock"
    with pytest.raises(AuditError) as err:
        trials_lock(
            read_prereg(str(prereg), file_blake3(prereg)),
            str(SKILLSBENCH),
            str(out),
            str(tmp_path / "e.json"),
            str(tmp_path),
        )
    assert err.value.kind == "bad_prereg"
    assert (
        "disclosure names row 'Codex (GPT-5.5)', which is not a row of leaderboard.parquet"
        in str(err.value)
    )
    assert not out.exists() and not (tmp_path / "e.json").exists()


@pytest.mark.skipif(not SKILLSBENCH.is_dir(), reason=f"{SKILLSBENCH} is not present")
def test_trials_lock_accepts_a_relation_to_a_joined_row_id(tmp_path: Path) -> None:
    row = "Codex (GPT-5.5)|With Skills"  # read off the shipped leaderboard's model, condition
    prereg = _trials_prereg(tmp_path, [{"row": row, "relation": "ours"}])
    out = tmp_path / "lock"
    trials_lock(
        read_prereg(str(prereg), file_blake3(prereg)),
        str(SKILLSBENCH),
        str(out),
        str(tmp_path / "e.json"),
        str(tmp_path),
    )
    assert yaml.safe_load((out / "prereg.yaml").read_text())["disclosure"]["relations"] == [
        {"row": row, "relation": "ours"}
    ]


def test_census_rows_mark_the_disclosed_row_with_its_relation() -> None:
    census = pl.DataFrame(
        {
            "row_id": ["a", "a", "b", "b", "b"],
            "column": ["x", "y", "x", "y", "z"],
            "class": ["reproduced", "structural", "divergent", "reproduced", "no_data"],
        }
    )
    doc = {
        "disclosure": {
            "auditor": "us",
            "relations": [{"row": "b", "relation": "the auditor's own model"}],
            "publication": "always",
        }
    }
    # counted by hand from the five cells above
    assert rows_csv(census, disclosure.of(doc)).splitlines() == [
        "row_id,cells,structural,no_antecedent,reproduced,divergent,no_data,disclosed",
        "a,2,1,0,1,0,0,",
        "b,3,0,0,1,1,1,the auditor's own model",
    ]


def _verdict(tmp_path: Path, name: str, selection: dict) -> str:
    path = tmp_path / f"{name}.json"
    v = {"control": name, "kind": selection.get("kind", "shift"), "selection": selection}
    v |= {"cells_predicted": 1, "cells_ok": 1, "unpredicted": {}, "class_changes": {"pandas": []}}
    v |= {"contestants_identical": True, "verdict": "pass", "reasons": []}
    path.write_text(json.dumps(v))
    return str(path)


def test_controls_on_a_disclosed_row_are_named_seeded_apart(tmp_path: Path) -> None:
    doc = yaml.safe_load((ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8"))
    doc |= {
        "controls": {
            "seeded_shift": {"kind": "shift", "target": "seeded"},
            "named_flip": {"kind": "flip", "target": {"row_id": "m2"}},
            "other_shift": {"kind": "shift", "target": "seeded"},
            "swap": {"kind": "swap", "target": {"row_ids": ["m1", "m3"]}},
        },
        "disclosure": {
            "auditor": "us",
            "relations": [{"row": "m2", "relation": "our agent"}],
            "publication": "always",
        },
    }
    one = {"row_id": "m2", "group": "g", "instances": [["m2", "g", "i1"]]}
    verdicts = [
        _verdict(tmp_path, "seeded_shift", one),
        _verdict(tmp_path, "named_flip", {**one, "kind": "flip"}),
        _verdict(tmp_path, "other_shift", {**one, "row_id": "m1"}),
        _verdict(tmp_path, "swap", {"row_ids": ["m1", "m3"], "kind": "swap"}),
    ]
    out_csv, out_md = tmp_path / "controls.csv", tmp_path / "controls.md"
    summarise(verdicts, [], parse(doc, "prereg.yaml"), str(out_csv), str(out_md))
    disclosed = {r["control"]: r["disclosed"] for r in read_csv_rows(out_csv)}
    assert disclosed == {
        "named_flip": "m2: our agent",
        "other_shift": "",
        "seeded_shift": "m2: our agent",
        "swap": "",
    }
    md = out_md.read_text()
    assert "On a disclosed row (the seed chose the target): seeded_shift on m2: our agent." in md
    assert "On a disclosed row (the prereg named the target): named_flip on m2: our agent." in md


def test_disclosure_text_names_no_row_when_none_is_declared() -> None:
    doc = {"disclosure": {"auditor": "us", "relations": [], "publication": "always"}}
    assert disclosure.text(disclosure.of(doc)) == [
        "Disclosure: audit run by us; publication: always",
        "Disclosed rows: none declared",
    ]


def test_a_registry_control_lands_on_its_entry() -> None:
    # A registry control (controls/registry_predict.py) names the entry it perturbs;
    # that entry is a leaderboard row, named by its row key joined by "|" as the
    # disclosure names rows. A trial control's selection names runs, no row.
    from audit.core.disclosure import control_rows, on_disclosed

    sel = {"entry": "Codex (GPT-5.5)|With Skills", "tasks": ["t1", "t2", "t3"]}
    assert control_rows(sel) == ["Codex (GPT-5.5)|With Skills"]
    rel = {"Codex (GPT-5.5)|With Skills": "we run on it"}
    assert on_disclosed(control_rows(sel), rel) == "Codex (GPT-5.5)|With Skills: we run on it"
    assert control_rows({"run": "r1", "trials": ["a"], "row_id": "x"}) == []


# Each text classed by reading the Unicode charts by hand: what a reader of the report sees.
VISIBILITY = [
    ("us", True),
    ("\u200bus", True),  # a zero-width space before a name: the name is seen
    ("\u00e9", True),  # a letter
    ("-", True),  # punctuation says something
    ("\u200b\u2060\u200d\ufeff", False),  # zero-width space, word joiner, ZWJ, BOM: format
    ("\u3164\u115f\uffa0", False),  # Hangul fillers: letters by category, drawn as nothing
    ("\u2800", False),  # the blank braille pattern
    ("\u00a0\u3000\u2028", False),  # no-break, ideographic and line separators: spaces
    ("\u0301", False),  # a combining accent on nothing
    ("\u0007\u001b", False),  # controls
    ("\U000e0041", False),  # a tag character (format)
]


@pytest.mark.parametrize(("text", "seen"), VISIBILITY)
def test_visible_means_a_character_a_reader_sees(text: str, seen: bool) -> None:
    assert disclosure.visible(text) is seen


def test_a_trials_prereg_with_an_invisible_relation_is_refused(tmp_path: Path) -> None:
    """trials v1 alike (cells v1: tests/conformance/prereg_disclosure_invisible_auditor_fail)."""
    from audit.trials import prereg as trials_prereg

    prereg = _trials_prereg(tmp_path, [{"row": "a|b", "relation": "\u200b\u200c"}])
    with pytest.raises(AuditError) as err:
        trials_prereg.load(prereg)
    assert err.value.kind == "bad_prereg"
    assert "at disclosure/relations/0/relation: has no visible character" in str(err.value)
