"""The report's rank section (both kinds): the rank census in words (audit/ranks/record.py),
its table and its plot. Written only where the prereg declares `ranks`."""

from __future__ import annotations

from pathlib import Path

from audit.files import write_atomic
from audit.kinds.arm_kind import Kind
from audit.kinds.record import Prereg
from audit.ranks import record as ranks
from audit.report import render


def section(res: Path, rec: Prereg, out: Path, kind: Kind) -> render.Section:
    """The report's rank section, its plot ranks.svg written into `out` (declared only)."""
    assert rec.ranks is not None
    rows = ranks.read(res)
    text, table = ranks.summary(rec, rows, kind, ranks.read(res, "rank_pairs.csv"))
    by_column = {n: [r for r in rows if r["column"] == n] for n in rec.ranks.columns}
    from audit.report import plots

    svg = plots.rank_intervals(by_column)
    write_atomic(out / "ranks.svg", svg)
    return render.Section(
        "Ranks: does the data support the published order?",
        "ranks",
        paragraphs=text,
        table=render.table(table, list(table[0]), "ranks") if table else None,
        figures=[render.Figure("ranks.svg", "rank intervals", "ranks-plot", svg)],
    )
