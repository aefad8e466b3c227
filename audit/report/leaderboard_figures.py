"""The leaderboard report's figures, drawn by a job of their own (``python -m audit
report-figures``) as soon as what they show exists, on a core the census chain leaves
free; the report (audit/report/leaderboard.py) inlines them as written.

What each shows is what the census copies: the census map the cells' classes of the
first contestant's first run (census_cells.csv is that file's bytes), in the locked
prereg's column order (census_columns.csv's); the null histograms that run's null
(null_hist.csv) and observed count (nulls.csv ``observed``, docs/contract.md: the
number of cells of the column whose class is ``reproduced``, the census's
``reproduced``); the controls' scatter every control's check.csv. The report is built
only once the census has passed (the two contestants agree, every cell has one class).

matplotlib is imported when the figures are drawn, not with FIGURES: the report reads
the names and never draws.
"""

from __future__ import annotations

import csv
from pathlib import Path

from audit.files import write_atomic
from audit.kinds.arm_kind import LEADERBOARD

# every figure is always written (the rule declares them): the controls' scatter with
# empty axes when the prereg has no controls
FIGURES = ("census_map.svg", "null_histograms.svg", "controls.svg")


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def control_points(res: Path) -> list[tuple[str, float, float, float]]:
    """(label, predicted, pandas, pyarrow) of every checked control cell with all three."""
    points = []
    for check in sorted((res / "controls").glob("*/check.csv")):
        for r in _csv(check):
            if r["predicted_change"] and r.get("pandas_change") and r.get("pyarrow_change"):
                points.append(
                    (
                        f"{r['control']}:{r['row_id']}:{r['column']}:{r['policy']}",
                        float(r["predicted_change"]),
                        float(r["pandas_change"]),
                        float(r["pyarrow_change"]),
                    )
                )
    return points


def draw(res_dir: str, out_dir: str) -> None:
    """FIGURES into ``out_dir``, from the arm's results folder ``res_dir``."""
    from audit.report import plots

    res, out = Path(res_dir), Path(out_dir)
    run = res / "recompute" / "pandas" / "run1"
    cells = _csv(run / "census.csv")
    columns = LEADERBOARD.locked_record(res / "lock" / "prereg.yaml").leaderboard_columns()
    classes = {(c["row_id"], c["column"]): c["class"] for c in cells}
    hist: dict[str, dict[int, int]] = {}
    for r in _csv(run / "null_hist.csv"):
        hist.setdefault(r["column"], {})[int(r["count"])] = int(r["draws"])
    observed = {r["column"]: int(r["observed"]) for r in _csv(run / "nulls.csv")}
    svgs = {
        "census_map.svg": plots.census_map(sorted({r for r, _ in classes}), columns, classes),
        "null_histograms.svg": plots.null_histograms(hist, observed),
        "controls.svg": plots.controls_scatter(control_points(res)),
    }
    for name in FIGURES:
        write_atomic(out / name, svgs[name])
