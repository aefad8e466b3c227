"""What the terminal shows at the end of a run, from the arm's files: the answer in the
report's order (findings, the verdict per column, the cells that do not reproduce;
audit/report/answer.py), then the report's path and the annex head, last.

A run asked for less than the whole arm (say results/<arm>/census.txt) has no report:
audit/preflight.py's run_summary prints what exists then.
"""

from __future__ import annotations

from pathlib import Path

from audit.kinds.arm_kind import Kind
from audit.report import answer

HEAD_PREFIX = "Annex head"


def _head(res: Path) -> list[str]:
    readme = res / "annex" / "README.md"
    if not readme.is_file():
        return []
    return [
        ln for ln in readme.read_text(encoding="utf-8").splitlines() if ln.startswith(HEAD_PREFIX)
    ]


def answer_summary(res: Path, kind: Kind) -> str | None:
    """The arm's answer as the terminal shows it, the report's path and the annex head last;
    None when the run built no report (audit/preflight.py prints what exists then)."""
    report = res / "report" / "report.html"
    if not (report.is_file() and (res / "census_cells.csv").is_file()):
        return None
    rec = kind.entry("record")(res / "lock" / "prereg.yaml")
    a = answer.build(res, rec, kind)
    lines = [*answer.terminal(a, title=f"secondseat, arm {res.name}"), f"Report: {report}"]
    return "\n".join(lines + _head(res)) + "\n"
