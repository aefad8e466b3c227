"""An arm whose prereg declares feasibility, through the referee: the agreement
compares feasibility.csv, the census counts infeasible apart, the report and the
certificate name each infeasible cell with the counts nearest it.

The demo's runtime over N = 8 in percent: 7.25 lies between 0/8 = 0 and
1/8 = 12.5, so it is the one infeasible no_antecedent cell (12.5 and 100.0 are
1/8 and 8/8; the fourth is null). Worked by hand, as in
tests/test_feasibility_contestants.py.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import blake3
import pytest

from audit.cells import prereg as cells_prereg
from audit.cells.record import Feasibility, frozen_mapping
from audit.core.agree import FEASIBILITY_KEYS, KEYS, TRIAL_KEYS
from audit.feasible import record
from audit.kinds.agreed import keys_for
from audit.kinds.arm_kind import LEADERBOARD, TRIALS
from tests.conftest import ROOT, run_audit, run_dag

DECLARED = (
    "feasibility:\n"
    "  runtime: {over: 8, scale: 100, scores: [0, 1], decimals: 1, rounding: half_even}\n"
)


def _prereg(tmp_path: Path) -> Path:
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert "\nseed: 7\n" in text
    p = tmp_path / "demo-feasible.yaml"
    p.write_text(
        text.replace("name: demo\n", "name: demo-feasible\n", 1).replace(
            "\nseed: 7\n", "\n" + DECLARED + "seed: 7\n"
        ),
        encoding="utf-8",
    )
    return p


def test_the_files_compared_follow_the_prereg(tmp_path: Path) -> None:
    assert keys_for(LEADERBOARD, str(ROOT / "prereg" / "demo.yaml")) == KEYS
    assert keys_for(LEADERBOARD, str(_prereg(tmp_path))) == {**KEYS, **FEASIBILITY_KEYS}
    assert keys_for(TRIALS, str(ROOT / "prereg" / "benchflow-sample.yaml")) == TRIAL_KEYS


def test_the_words_of_an_infeasible_cell() -> None:
    # 87.1 at N = 89: 77/89 = 86.52, 78/89 = 87.64 (by hand); 100.1 has nothing above.
    demo = cells_prereg.load_record(ROOT / "prereg" / "demo.yaml")
    doc = replace(
        demo,
        feasibility=frozen_mapping({"s": Feasibility("s", 89, 100, (0, 1), 1, "half_even")}),
    )
    rows = [
        {
            "row_id": "a",
            "column": "s",
            "published": "87.100000",
            "n": "89",
            "verdict": "infeasible",
            "low": "77",
            "high": "78",
        },
        {
            "row_id": "b",
            "column": "s",
            "published": "100.100000",
            "n": "89",
            "verdict": "infeasible",
            "low": "89",
            "high": "",
        },
        {
            "row_id": "c",
            "column": "s",
            "published": "87.640000",
            "n": "89",
            "verdict": "feasible",
            "low": "78",
            "high": "78",
        },
    ]
    paragraphs, table = record.summary(doc, rows)
    assert paragraphs[0].endswith("1 feasible, 2 infeasible, 0 without a value, 0 without a count.")
    assert table[0] == {
        "row": "a",
        "column": "s",
        "published": "87.100000",
        "N": "89",
        "nearest below": "77/89 = 86.52",
        "nearest above": "78/89 = 87.64",
    }
    assert table[1]["nearest above"] == "-"
    assert record.infeasible_line(rows[0], 100) == (
        "a s: published 87.100000 at N = 89: no count gives it; nearest 77/89 = 86.52 "
        "and 78/89 = 87.64"
    )
    assert not demo.feasibility
    assert record.summary(demo, []) == ([record.NOT_DECLARED], [])


def test_the_words_of_each_declared_n() -> None:
    # the three forms of a feasibility column's over (prereg key feasibility), as parsed
    assert record.over_words(89) == "N = 89"
    assert record.over_words(("column", "n_tasks")) == "N in column n_tasks"
    assert record.over_words(("instances", None)) == "N = each row's instance rows"
    assert record.over_words(("instances", "g")) == "N = each row's instance rows in group g"


@pytest.mark.slow
def test_a_declared_arm_end_to_end(tmp_path: Path) -> None:
    prereg = _prereg(tmp_path)
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    res = run_dag(
        tmp_path,
        "--config",
        "arm=demo-feasible",
        f"prereg={prereg}",
        f"prereg_blake3={digest}",
    )
    assert res.returncode == 0, res.stderr[-3000:]
    arm = tmp_path / "results" / "demo-feasible"
    census = json.loads((arm / "census.json").read_text())
    assert census["classes"]["infeasible"] == 1
    assert census["classes"]["no_antecedent"] == 15  # the demo's 16, less the one
    agreement = json.loads((arm / "agreement.json").read_text())
    assert agreement["disagreements"] == 0
    assert "feasibility.csv" in [f["file"] for f in agreement["files"]]
    cert = (arm / "annex" / "certificate.md").read_text(encoding="utf-8")
    assert (
        "- demo/m2 runtime: published 7.250000 at N = 8: no count gives it; nearest "
        "0/8 = 0.00 and 1/8 = 12.50"
    ) in cert
    # among the cells that do not reproduce: its published value as the bundle has it
    # (nothing recomputed, no rule): the line the report's answer builds for it
    assert "| demo/m2 | runtime | infeasible | 7.250000 | - | - | - |" in cert
    report = (arm / "report" / "report.md").read_text(encoding="utf-8")
    assert "| demo/m2 | runtime | 7.250000 | 8 | 0/8 = 0.00 | 1/8 = 12.50 |" in report
    controls = (arm / "controls.csv").read_text(encoding="utf-8")
    assert ",fail," not in controls
    head = (arm / "annex" / "ledger.jsonl").read_text().splitlines()[-1]
    verified = run_audit("verify", arm / "annex", "--head", json.loads(head)["hash"])
    assert verified.code == 0, verified.stdout + verified.stderr
