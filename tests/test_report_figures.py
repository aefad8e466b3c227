"""A leaderboard report's figures are drawn by a job of their own before the census
(audit/report/leaderboard_figures.py), from the first contestant's first run, the locked
prereg and the controls' checks; the report inlines them as written.

Held here on a hand-built arm folder (the demo prereg as locked, three rows): the three
SVGs are the bytes the report drew from the census's files before the split (the census
map from census_cells.csv in census_columns.csv's column order, the null histograms
against census_columns.csv's ``reproduced``; both files written below as the census
writes them: census_cells.csv the run's census.csv, ``reproduced`` the count of that
column's cells of class ``reproduced``, worked out by hand), and the report reads the
files' bytes, not drawing them again."""

from __future__ import annotations

import shutil
from pathlib import Path

from audit.report import leaderboard_figures, plots

ROOT = Path(__file__).resolve().parent.parent

STRUCTURAL = ["id", "agent_name", "categories_completed"]
NO_ANTECEDENT = ["notes", "release", "open_weights", "runtime"]
MEASURED = [
    "model",
    "alpha_score",
    "beta_score",
    "alpha_cost",
    "beta_cost",
    "average_score",
    "average_cost",
]
ROWS = ["r2", "r1", "r3"]  # as a contestant writes them; the map sorts them
# the measured cells' classes, by hand: alpha_score reproduces in 2 rows, beta_cost in 1
MEASURED_CLASSES = {
    ("r1", "alpha_score"): "reproduced",
    ("r2", "alpha_score"): "reproduced",
    ("r3", "alpha_score"): "divergent",
    ("r1", "beta_cost"): "reproduced",
    ("r2", "beta_cost"): "no_data",
}
OBSERVED = {c: 0 for c in MEASURED} | {"alpha_score": 2, "beta_cost": 1}


def _class(row: str, column: str) -> str:
    if column in STRUCTURAL:
        return "structural"
    if column in NO_ANTECEDENT:
        return "no_antecedent"
    return MEASURED_CLASSES.get((row, column), "divergent")


def _arm(tmp: Path) -> Path:
    res = tmp / "results" / "demo"
    (res / "lock").mkdir(parents=True)
    shutil.copyfile(ROOT / "prereg" / "demo.yaml", res / "lock" / "prereg.yaml")
    run = res / "recompute" / "pandas" / "run1"
    run.mkdir(parents=True)
    cells = "row_id,column,class\n" + "".join(
        f"{r},{c},{_class(r, c)}\n" for r in ROWS for c in STRUCTURAL + NO_ANTECEDENT + MEASURED
    )
    (run / "census.csv").write_text(cells)
    (run / "nulls.csv").write_text(
        "column,observed,null_mean,null_sd,null_max,draws_ge_observed,draws,p\n"
        + "".join(f"{c},{OBSERVED[c]},0.5,0.5,2,1,4,0.4\n" for c in sorted(MEASURED))
    )
    (run / "null_hist.csv").write_text(
        "column,count,draws\n" + "".join(f"{c},0,3\n{c},2,1\n" for c in sorted(MEASURED))
    )
    check = res / "controls" / "flip" / "check.csv"
    check.parent.mkdir(parents=True)
    check.write_text(
        "control,row_id,column,policy,predicted_after,predicted_change,pandas_after,"
        "pandas_change,pyarrow_after,pyarrow_change,verdict\n"
        "flip,r1,alpha_score,A,50,-10,50,-10,50,-10,ok\n"
        "flip,r2,alpha_score,A,40,,40,0,40,0,ok\n"
    )
    # the census's own files, as it writes them (audit/cells/census.py)
    (res / "census_cells.csv").write_text(cells)
    (res / "census_columns.csv").write_text(
        "column,kind,reproduced\n"
        + "".join(f"{c},structural,0\n" for c in STRUCTURAL)
        + "".join(f"{c},no_antecedent,0\n" for c in NO_ANTECEDENT)
        + "".join(f"{c},measured,{OBSERVED[c]}\n" for c in MEASURED)
    )
    return res


def test_the_figures_are_what_the_report_drew_from_the_census(tmp_path: Path) -> None:
    res = _arm(tmp_path)
    out = res / "report"
    leaderboard_figures.draw(str(res), str(out))
    got = {n: (out / n).read_bytes().decode("utf-8") for n in leaderboard_figures.FIGURES}
    # as the report drew them before (census_cells.csv, census_columns.csv)
    cells = leaderboard_figures._csv(res / "census_cells.csv")
    columns = leaderboard_figures._csv(res / "census_columns.csv")
    classes = {(c["row_id"], c["column"]): c["class"] for c in cells}
    observed = {c["column"]: int(c["reproduced"]) for c in columns if c["kind"] == "measured"}
    hist = {c: {0: 3, 2: 1} for c in MEASURED}
    assert got == {
        "census_map.svg": plots.census_map(
            ["r1", "r2", "r3"], [c["column"] for c in columns], classes
        ),
        "null_histograms.svg": plots.null_histograms(hist, observed),
        # the second line has no predicted change: not a point
        "controls.svg": plots.controls_scatter([("flip:r1:alpha_score:A", -10.0, -10.0, -10.0)]),
    }
