"""An arm whose prereg declares ranks, through the whole DAG (slow): the agreement
compares ranks.csv and rank_pairs.csv, the report and the certificate hold the rank
section, "What this does not show" says what a tie means, controls pass, verify passes.

Worked by hand on the demo: no two rows share more than 4 alpha or beta items, so no
pair has more than 4 discordant items and the least exact two-sided p is 2/2^4 = 0.125
> 0.05 before any correction: every pair is tied, and the top row's tie group is every
ranked row (alpha_score: m2 66.62, m4 40.0, m1 37.5, m3 0.0; beta_score: m4 100.0,
m2 70.3, m1 50.0, m3's null leaves it out).
"""

from __future__ import annotations

import json
from pathlib import Path

import blake3
import pytest

from audit.core.agree import KEYS, RANK_KEYS
from audit.kinds.agreed import keys_for
from audit.kinds.arm_kind import LEADERBOARD
from audit.ranks.record import TIE_MEANING
from tests.conftest import ROOT, run_audit, run_dag

DECLARED = (
    "ranks: {columns: [alpha_score, beta_score], alpha: 0.05, correction: holm, "
    "seed: 11, draws: 200}\n"
)


def _prereg(tmp_path: Path) -> Path:
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert "\nseed: 7\n" in text
    p = tmp_path / "demo-ranks.yaml"
    p.write_text(
        text.replace("name: demo\n", "name: demo-ranks\n", 1).replace(
            "\nseed: 7\n", "\n" + DECLARED + "seed: 7\n"
        ),
        encoding="utf-8",
    )
    return p


def test_keys_for_adds_the_rank_files_only_when_declared(tmp_path: Path) -> None:
    assert keys_for(LEADERBOARD, str(ROOT / "prereg" / "demo.yaml")) == KEYS
    assert keys_for(LEADERBOARD, str(_prereg(tmp_path))) == {**KEYS, **RANK_KEYS}


@pytest.mark.slow
def test_a_declared_arm_end_to_end(tmp_path: Path) -> None:
    prereg = _prereg(tmp_path)
    digest = blake3.blake3(prereg.read_bytes()).hexdigest()
    res = run_dag(
        tmp_path, "--config", "arm=demo-ranks", f"prereg={prereg}", f"prereg_blake3={digest}"
    )
    assert res.returncode == 0, res.stderr[-3000:]
    arm = tmp_path / "results" / "demo-ranks"
    agreement = json.loads((arm / "agreement.json").read_text())
    assert agreement["disagreements"] == 0
    files = [f["file"] for f in agreement["files"]]
    assert "ranks.csv" in files and "rank_pairs.csv" in files
    cert = (arm / "annex" / "certificate.md").read_text(encoding="utf-8")
    assert "## Ranks" in cert
    assert (
        "alpha_score: the top row demo/m2's tie group holds 4 of 4 rows "
        "(demo/m2; demo/m4; demo/m1; demo/m3). Of 3 adjacent published pairs, 0 separated, "
        "3 tied, 0 reversed."
    ) in cert
    assert "- beta_score: demo/m4 above demo/m2: tied" in cert
    assert TIE_MEANING in cert
    report = (arm / "report" / "report.md").read_text(encoding="utf-8")
    assert "beta_score: the top row demo/m4's tie group holds 3 of 3 rows" in report
    assert TIE_MEANING in report
    svg = (arm / "report" / "ranks.svg").read_text(encoding="utf-8")
    assert "beta_score: blue, the top row" in svg and "demo/m4" in svg
    controls = (arm / "controls.csv").read_text(encoding="utf-8")
    assert ",fail," not in controls
    # the swap (m1 and m2, both ranked in both columns) moved the rank census as the
    # stamped prediction said; the reorder changed no byte of it
    swap = json.loads((arm / "controls" / "swap_m1_m2" / "verdict.json").read_text())
    assert swap["verdict"] == "pass", swap["reasons"]
    assert swap["ranks_predicted"] == ["alpha_score", "beta_score"]
    stamped = json.loads((arm / "controls" / "swap_m1_m2" / "selection.json").read_text())
    assert stamped["ranks"]["columns"] == ["alpha_score", "beta_score"]
    head = (arm / "annex" / "ledger.jsonl").read_text().splitlines()[-1]
    verified = run_audit("verify", arm / "annex", "--head", json.loads(head)["hash"])
    assert verified.code == 0, verified.stdout + verified.stderr
