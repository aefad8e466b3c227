"""The leaderboard report: Markdown and a self-contained HTML page with the plots
(the page model is audit/report/render.py's; the templates decide how it looks)."""

from __future__ import annotations

import csv
from pathlib import Path

from audit.cells import prereg
from audit.cells.summary import (
    NO_INSTANCE_ROWS,
    CensusSummary,
    constructed_words,
    infeasible_words,
)
from audit.core import disclosure
from audit.core.agreement import Agreement
from audit.feasible import record as feasibility
from audit.kinds.arm_kind import LEADERBOARD
from audit.report import answer, limits, rank_section, render
from audit.report import leaderboard_figures as figures
from audit.seal import timestamp, versus, vulns
from audit.text import labels, numbers


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def build(res_dir: str, out_dir: str) -> None:
    res, out = Path(res_dir), Path(out_dir)
    summary = CensusSummary.read(res / "census.json")
    columns = _csv(res / "census_columns.csv")
    agreement = Agreement.read(res / "agreement.json")
    # drawn beside the report by their own job (audit/report/leaderboard_figures.py);
    # the bytes as written (no newline translation), inlined in the HTML
    svgs = {name: (out / name).read_bytes().decode("utf-8") for name in figures.FIGURES}
    controls = _csv(res / "controls.csv") if (res / "controls.csv").exists() else []
    draws = {
        r["column"]: r["draws"] for r in _csv(res / "recompute" / "pandas" / "run1" / "nulls.csv")
    }
    measured = [
        _column_row(c, draws.get(c["column"], "")) for c in columns if c["kind"] == "measured"
    ]
    sections = [
        render.Section(
            "Census",
            "census",
            table=render.table(
                [
                    {"class": labels.label(k), "cells": numbers.count(v)}
                    for k, v in summary.classes.items()
                ],
                ["class", "cells"],
                "census-table",
            ),
            figures=[_figure(svgs, "census_map.svg", "census map", "census-map")],
        ),
        render.Section(
            "Per column, with the permutation null beside each",
            "columns",
            paragraphs=[] if measured else ["(none)"],
            table=render.table(measured, list(measured[0]) if measured else [], "column-table"),
            figures=[_figure(svgs, "null_histograms.svg", "null histograms", "null-histograms")],
        ),
    ]
    if controls:
        sections.append(
            render.Section(
                "Controls",
                "controls",
                table=render.table(controls, list(controls[0]), "controls-table"),
                figures=[_figure(svgs, "controls.svg", "controls", "controls-plot")],
            )
        )
    rec = prereg.load_record(res / "lock" / "prereg.yaml")
    feasible_text, feasible_table = feasibility.summary(
        rec, feasibility.read(res) if rec.feasibility else []
    )
    sections.append(
        render.Section(
            "Feasibility: can each declared value be true at all?",
            "feasibility",
            paragraphs=feasible_text,
            table=render.table(
                feasible_table, list(feasible_table[0]) if feasible_table else [], "feasibility"
            )
            if feasible_table
            else None,
        )
    )
    if rec.ranks:  # declared only: an arm without it keeps its bytes
        sections.append(rank_section.section(res, rec, out, LEADERBOARD))
    threshold = summary.chance["threshold"]
    chance = [_chance_row(c, threshold) for c in columns if c["kind"] == "measured"]
    constructed = [
        constructed_words(c, float(summary.chance["epsilon"]), summary.chance["threshold"])
        for c in columns
        if c.get("constructed") == "yes"
    ]
    sections.append(
        render.Section(
            "Agreement beyond chance",
            "chance",
            paragraphs=[f"Constructed: {w}." for w in constructed]
            or ["No column agrees more exactly than its published precision explains."],
            table=render.table(chance, list(chance[0]) if chance else [], "chance-table"),
        )
    )
    sections.append(
        render.Section("Environment", "environment", [vulns.line_of(res), timestamp.line_of(res)])
    )
    amended = versus.paragraphs(res)
    if amended is not None:
        sections.append(render.Section("Amendment: beside its parent", "versus", amended))
    page = render.Page(
        "secondseat report",
        _intro(summary, agreement),
        sections,
        limits.lines(res, rec, LEADERBOARD),
        disclosure.items(rec.disclosure),
        answer.build(res, rec, LEADERBOARD),
    )
    render.write(page, out)


def _figure(svgs: dict[str, str], name: str, alt: str, ident: str) -> render.Figure:
    return render.Figure(name, alt, ident, svgs[name])


def _column_row(c: dict[str, str], draws: str) -> dict[str, str]:
    tiers = [k for k in c if k.startswith("tier_")]
    return {
        "column": c["column"],
        "reproduced": c["reproduced"],
        "divergent": c["divergent"],
        "no_data": c["no_data"],
        **{k.replace("tier_", "tier "): c[k] for k in tiers},
        "min_divergent_abs_diff": numbers.stat(c["min_divergent_abs_diff"], 4)
        if c["min_divergent_abs_diff"]
        else "",
        "null_mean": numbers.stat(c["null_mean"], 3),
        "null_sd": numbers.stat(c["null_sd"], 3),
        "null_max": c["null_max"],
        # an empty p is a null that is not computable (docs/contract.md, nulls.csv)
        "null_p": numbers.perm_p(c["null_p"], draws)
        if c["null_p"]
        else ("not computable" if c["null_observed"] else ""),
    }


def _chance_row(c: dict[str, str], threshold: object) -> dict[str, str]:
    return {
        "column": c["column"],
        "chance_cells": c["chance_cells"],
        "chance_certain": c["chance_certain"],
        "chance_tested": c["chance_tested"],
        "chance_exact": c["chance_exact"],
        "chance_expected": numbers.stat(c["chance_expected"], 3),
        "chance_p": numbers.chance_p(c["chance_p"], threshold),
        "constructed": c["constructed"],
    }


def _intro(summary: CensusSummary, agreement: Agreement) -> list[str]:
    c = summary.classes
    return [
        f"{summary.cells:,} cells ({summary.rows} rows x {summary.columns} columns) of the "
        f"leaderboard under prereg `{summary.arm_prereg}` (blake3 `{summary.prereg_blake3}`).",
        f"{summary.with_antecedent} cells have an antecedent in the instance table: "
        f"{c['reproduced']} reproduce at a declared tier, {c['divergent']} diverge under every "
        f"declared policy, {c['no_data']} have no data. {c['no_antecedent']} have no antecedent "
        f"and {c['structural']} are structural: neither kind is a failure.",
        *([f"{infeasible_words(c['infeasible'])}."] if "infeasible" in c else []),
        f"The two implementations disagree on {agreement.disagreements} cell(s).",
        *([NO_INSTANCE_ROWS] if summary.instance_rows == 0 else []),
    ]
