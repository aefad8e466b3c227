"""The README's path on the SWE-bench site sample, whole: adapt-swebench-site, draft-prereg,
the shipped prereg and config, the DAG to a sealed annex.

What each published cell should come to is worked out here from the JSON file itself
(exact fractions over the instance values, the json module's reading), never from the
audit's outputs.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, read_csv_rows, run_audit, run_dag

SAMPLE = (
    ROOT / ".." / "shared" / "bundles" / "swebench-bashonly-sample" / "leaderboards.json"
).resolve()
ARM = "swebench-bashonly"


def _printed(x: float) -> int:
    """The decimals a float's shortest round-trip text prints, trailing zeros left out."""
    return max(0, -Decimal(repr(x)).normalize().as_tuple().exponent)


def _expected(board: dict) -> dict[tuple[str, str], Fraction]:
    """(row id, column) -> the recomputed double as the contract defines it (a rate: one
    IEEE division of two integers; a mean: the exact sum rounded once to a double, then
    one division), its exact value; worked with Fractions and float(), not the audit."""
    out = {}
    for r in board["results"]:
        inst = list(r["per_instance_details"].values())
        n = len(inst)
        rid = f"{board['name']}/{r['folder']}"
        k = sum(bool(i["resolved"]) for i in inst)
        out[(rid, "resolved")] = Fraction((100 * k) / n)
        cost = float(sum(Fraction(i["cost"]) for i in inst))
        out[(rid, "instance_cost")] = Fraction(cost / n)
        out[(rid, "instance_calls")] = Fraction(float(sum(i["api_calls"] for i in inst)) / n)
        out[(rid, "cost")] = Fraction(cost)
    return out


@pytest.mark.slow
@pytest.mark.skipif(not SAMPLE.is_file(), reason="the shared sample is not beside the clone")
def test_the_sample_is_audited_from_the_adapter_to_a_sealed_annex(
    impl_envs, tmp_path: Path
) -> None:
    bundle = tmp_path / "intake" / ARM
    res = run_audit("adapt-swebench-site", SAMPLE, "--board", "bash-only", "--out", bundle)
    assert res.code == 0, res.stderr
    draft = tmp_path / "draft.yaml"
    assert run_audit("draft-prereg", bundle, "--out", draft).code == 0
    assert yaml.safe_load(draft.read_text())["chance"]["epsilon"] == "UNDECIDED"

    p = run_dag(
        tmp_path,
        "--configfile",
        str(ROOT / "config" / f"{ARM}.yaml"),
        "--config",
        f"prereg={ROOT / 'prereg' / f'{ARM}.yaml'}",
        f"bundle={bundle}",
    )
    assert p.returncode == 0, p.stderr[-3000:]
    out = tmp_path / "results" / ARM
    assert (out / "annex" / "manifest.json").is_file()
    agreement = json.loads((out / "agreement.json").read_text())
    assert agreement["disagreements"] == 0 and agreement["all_byte_identical"]

    board = json.loads(SAMPLE.read_text())["leaderboards"][0]
    want = _expected(board)
    cells = {(c["row_id"], c["column"]): c for c in read_csv_rows(out / "census_cells.csv")}
    published = {
        (f"bash-only/{r['folder']}", col): r[col]
        for r in board["results"]
        for col in ("resolved", "cost", "instance_cost", "instance_calls")
    }
    for key, pub in published.items():
        cell = cells[key]
        # every row of the sample lists all 500 instances, so the policies agree;
        # each cell at the decimals it prints (the resolved percent at least 1, as the
        # JSON prints 61.0), the recomputed value rounded half to even there
        places = _printed(pub) if key[1] != "resolved" else max(_printed(pub), 1)
        same = Fraction(Decimal(repr(pub))) == round(want[key], places)  # P: its repr
        assert cell["class"] == "reproduced", (key, cell)
        assert same == (cell["best_tier"] == "0"), (key, cell)
    chance = {
        r["column"]: r for r in read_csv_rows(out / "recompute" / "pandas" / "run1" / "chance.csv")
    }
    # none flagged constructed: instance_cost and cost are computed from the very instance
    # costs shipped, whose printed binary noise is not precision (issue 29)
    for col in ("resolved", "cost", "instance_cost", "instance_calls"):
        assert chance[col]["constructed"] == "no", chance[col]
    # the census's own words (census.txt), and no such finding in the run's closing summary
    census_txt = (out / "census.txt").read_text(encoding="utf-8")
    assert "No column agrees more exactly than its published precision explains." in census_txt
    assert "Agreement too exact" not in p.stdout
    # feasibility (prereg key feasibility: resolved over N = 500, percent, half even, at
    # least one decimal): feasible exactly when some whole S in 0..500 has 100 * S / 500
    # = S / 5 rounding, half to even at the cell's decimals, to the published value;
    # every S tried here (brute force, not the contestants' interval or bisection)
    feasible = {
        (r["row_id"], r["column"]): r
        for r in read_csv_rows(out / "recompute" / "pandas" / "run1" / "feasibility.csv")
    }
    assert sorted(feasible) == sorted(k for k in published if k[1] == "resolved")
    for key, pub in published.items():
        if key[1] != "resolved":
            continue
        places = max(_printed(pub), 1)
        target = Fraction(Decimal(repr(pub)))
        hits = [s for s in range(501) if round(Fraction(s, 5), places) == target]
        row = feasible[key]
        assert row["verdict"] == ("feasible" if hits else "infeasible"), (key, row)
        if hits:
            assert (row["low"], row["high"]) == (str(hits[0]), str(hits[-1])), (key, row)
        assert cells[key]["class"] == "reproduced"  # a measured cell keeps its class
