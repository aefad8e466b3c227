"""A column whose reproduction is no better than chance is a finding of the first screen
(audit/report/answer.py): at least one cell reproduced and the permutation null's mean count
at least the observed count, decided exactly from null_hist.csv. The cases are built by hand
(files written here, every number worked out below), not by a contestant."""

from __future__ import annotations

from pathlib import Path

from audit.kinds.arm_kind import LEADERBOARD, TRIALS
from audit.report import answer

NULLS = "column,observed,null_mean,null_sd,null_max,draws_ge_observed,draws,p\n"


def _arm(
    tmp: Path, null_line: str, hist: list[tuple[int, int]], reproduced: int, cells: int
) -> Path:
    """An arm's files: one column "tasks" of ``cells`` judged cells, the first ``reproduced``
    of them reproduced at tier 0, the rest divergent; its null line and histogram as given."""
    run = tmp / "recompute" / "pandas" / "run1"
    run.mkdir(parents=True)
    (run / "nulls.csv").write_text(NULLS + null_line + "\n", encoding="utf-8")
    (run / "null_hist.csv").write_text(
        "column,count,draws\n" + "".join(f"tasks,{c},{d}\n" for c, d in hist), encoding="utf-8"
    )
    rows = ["row_id,column,class,best_tier"]
    rows += [
        f"r{k},tasks," + ("reproduced,0" if k < reproduced else "divergent,") for k in range(cells)
    ]
    (tmp / "census_cells.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp


def _titles(res: Path, kind=LEADERBOARD) -> list[str]:
    cells = answer._csv(res / "census_cells.csv")
    return [f.title for f in answer._findings(res, cells, kind) if f.title.startswith("tasks:")]


def test_null_mean_equal_to_observed_is_a_finding(tmp_path: Path) -> None:
    # SkillsBench's tasks column: every one of 1000 draws reproduces all 6 cells, so the
    # mean is 6000 / 1000 = 6 = observed; draws_ge_observed 1000, p = (1 + 1000) / 1001 = 1.
    # Shown: the mean at 3 significant digits "6.00", p at the floor's 3 places "1.000".
    res = _arm(tmp_path, "tasks,6,6.000000,0.000000,6,1000,1000,1.000000", [(6, 1000)], 6, 6)
    want = (
        "tasks: 6 of 6 reproduced, but chance alone reproduces 6.00 (permutation null, "
        "p 1.000): this agreement shows nothing"
    )
    assert _titles(res) == [want]
    assert _titles(res, TRIALS) == [want]  # the same rule for a trials arm's columns


def test_null_mean_just_below_observed_is_not(tmp_path: Path) -> None:
    # 999 draws reproduce 6 cells and one reproduces 5: the sum 5,999 < 6 x 1000, mean 5.999
    # below the observed 6; draws_ge_observed 999, p = 1000 / 1001 = 0.999001.
    res = _arm(tmp_path, "tasks,6,5.999000,0.031623,6,999,1000,0.999001", [(5, 1), (6, 999)], 6, 6)
    assert _titles(res) == []


def test_the_rule_is_exact_where_the_written_mean_rounds_up(tmp_path: Path) -> None:
    # 4,000,000 draws, one of 5 and the rest 6: the sum is 6 x 4,000,000 - 1, the mean
    # 5.99999975, written at six decimals as 6.000000. Exactly, it is below 6: no finding.
    d = 4_000_000
    line = f"tasks,6,6.000000,0.000500,6,{d - 1},{d},0.999999"
    res = _arm(tmp_path, line, [(5, 1), (6, d - 1)], 6, 6)
    assert _titles(res) == []


def test_a_mean_above_a_count_below_the_whole_is_a_finding(tmp_path: Path) -> None:
    # Terminal-Bench's stderr shape: 3 of 4 cells reproduce, the draws give 2 x 100, 3 x 600,
    # 4 x 300: sum 200 + 1800 + 1200 = 3200 >= 3 x 1000, mean 3.2; draws >= 3: 900,
    # p = 901 / 1001 = 0.900100 -> "0.900" at the floor's 3 places.
    line = "tasks,3,3.200000,0.600000,4,900,1000,0.900100"
    res = _arm(tmp_path, line, [(2, 100), (3, 600), (4, 300)], 3, 4)
    assert _titles(res) == [
        "tasks: 3 of 4 reproduced, but chance alone reproduces 3.20 (permutation null, "
        "p 0.900): this agreement shows nothing"
    ]


def test_nothing_reproduced_is_not_this_finding(tmp_path: Path) -> None:
    # observed 0 and mean 0 (p not computable): no reproduction to discount
    res = _arm(tmp_path, "tasks,0,0.000000,0.000000,0,1000,1000,", [(0, 1000)], 0, 2)
    assert _titles(res) == []
