"""The human report: Markdown and a self-contained HTML page with the plots."""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path

from audit import plots
from audit.census import NO_INSTANCE_ROWS, constructed_words
from audit.files import write_atomic
from audit.seal import vulns


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _control_points(res: Path) -> list[tuple[str, float, float, float]]:
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


def build(res_dir: str, out_dir: str) -> None:
    res, out = Path(res_dir), Path(out_dir)
    summary = json.loads((res / "census.json").read_text())
    columns = _csv(res / "census_columns.csv")
    cells = _csv(res / "census_cells.csv")
    agreement = json.loads((res / "agreement.json").read_text())
    rows = sorted({c["row_id"] for c in cells})
    order = [c["column"] for c in columns]
    classes = {(c["row_id"], c["column"]): c["class"] for c in cells}
    hist: dict[str, dict[int, int]] = {}
    for r in _csv(res / "recompute" / "pandas" / "run1" / "null_hist.csv"):
        hist.setdefault(r["column"], {})[int(r["count"])] = int(r["draws"])
    observed = {c["column"]: int(c["reproduced"]) for c in columns if c["kind"] == "measured"}
    svgs = {
        "census_map.svg": plots.census_map(rows, order, classes),
        "null_histograms.svg": plots.null_histograms(hist, observed),
    }
    controls = _csv(res / "controls.csv") if (res / "controls.csv").exists() else []
    # always written (the rule declares it), empty axes when the prereg has no controls
    svgs["controls.svg"] = plots.controls_scatter(_control_points(res))
    for name, text in svgs.items():
        write_atomic(out / name, text)
    tables = {
        "classes": [{"class": k, "cells": str(v)} for k, v in summary["classes"].items()],
        "columns": [_column_row(c) for c in columns if c["kind"] == "measured"],
        "controls": controls,
        "chance": [_chance_row(c) for c in columns if c["kind"] == "measured"],
        "constructed": [
            constructed_words(c, float(summary["chance"]["epsilon"]))
            for c in columns
            if c.get("constructed") == "yes"
        ],
        # one line: were the environments audited, and what was found (audit/seal/vulns.py)
        "vulns": vulns.line_of(res),
    }
    write_atomic(out / "report.md", _markdown(summary, agreement, tables, svgs))
    write_atomic(out / "report.html", _html(summary, agreement, tables, svgs))


def _column_row(c: dict[str, str]) -> dict[str, str]:
    tiers = [k for k in c if k.startswith("tier_")]
    return {
        "column": c["column"],
        "reproduced": c["reproduced"],
        "divergent": c["divergent"],
        "no_data": c["no_data"],
        **{k.replace("tier_", "tier "): c[k] for k in tiers},
        "smallest divergent |diff|": c["min_divergent_abs_diff"],
        "null mean": c["null_mean"],
        "null sd": c["null_sd"],
        "null max": c["null_max"],
        # an empty p is a null that is not computable (docs/contract.md, nulls.csv)
        "p": c["null_p"] or ("not computable" if c["null_observed"] else ""),
    }


def _chance_row(c: dict[str, str]) -> dict[str, str]:
    return {
        "column": c["column"],
        "cells": c["chance_cells"],
        "certain by arithmetic": c["chance_certain"],
        "tested": c["chance_tested"],
        "exact": c["chance_exact"],
        "expected by chance": c["chance_expected"],
        "binomial p": c["chance_p"],
        "constructed": c["constructed"],
    }


def _chance_words(tables: dict) -> list[str]:
    if not tables["constructed"]:
        return ["No column agrees more exactly than its published precision explains."]
    return [f"**Constructed**: {w}." for w in tables["constructed"]]


def _intro(summary: dict, agreement: dict, vulns_line: str) -> list[str]:
    c = summary["classes"]
    return [
        f"{summary['cells']:,} cells ({summary['rows']} rows x {summary['columns']} columns) of the "
        f"leaderboard under prereg `{summary['arm_prereg']}` (blake3 `{summary['prereg_blake3']}`).",
        f"{summary['with_antecedent']} cells have an antecedent in the instance table: "
        f"{c['reproduced']} reproduce at a declared tier, {c['divergent']} diverge under every "
        f"declared policy, {c['no_data']} have no data. {c['no_antecedent']} have no antecedent "
        f"and {c['structural']} are structural: neither kind is a failure.",
        f"The two implementations disagree on {agreement['disagreements']} cell(s).",
        *([NO_INSTANCE_ROWS] if summary["instance_rows"] == 0 else []),
        vulns_line,
    ]


def _md_table(rows: list[dict[str, str]]) -> list[str]:
    if not rows:
        return ["(none)"]
    head = list(rows[0])
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *["| " + " | ".join(r[h] for h in head) + " |" for r in rows],
    ]


def _markdown(summary: dict, agreement: dict, tables: dict, svgs: dict) -> str:
    out = [
        "# secondseat report",
        "",
        *_intro(summary, agreement, tables["vulns"]),
        "",
        "## Census",
        "",
        *_md_table(tables["classes"]),
        "",
        "![census map](census_map.svg)",
        "",
        "## Per column, with the permutation null beside each",
        "",
        *_md_table(tables["columns"]),
        "",
        "![null histograms](null_histograms.svg)",
        "",
        "## Agreement beyond chance",
        "",
        *_md_table(tables["chance"]),
        "",
        *_chance_words(tables),
        "",
    ]
    if tables["controls"]:
        out += [
            "## Controls",
            "",
            *_md_table(tables["controls"]),
            "",
            "![controls](controls.svg)",
            "",
        ]
    return "\n".join(out)


def _html_table(rows: list[dict[str, str]], ident: str) -> str:
    if not rows:
        return "<p>(none)</p>"
    head = list(rows[0])
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(r[h])}</td>" for h in head) + "</tr>" for r in rows
    )
    return f'<table id="{ident}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _figure(svg: str, ident: str) -> str:
    start = svg.find("<svg")
    return f'<figure id="{ident}">{svg[start:]}</figure>'


def _html(summary: dict, agreement: dict, tables: dict, svgs: dict) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>secondseat report</title>",
        "<style>body{font-family:sans-serif;max-width:75em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
        "font-size:0.85em;text-align:right}th{background:#f4f4f4}figure{margin:1em 0}"
        "svg{max-width:100%;height:auto}</style></head><body>",
        "<h1>secondseat report</h1>",
        *[f"<p>{html.escape(p)}</p>" for p in _intro(summary, agreement, tables["vulns"])],
        "<h2>Census</h2>",
        _html_table(tables["classes"], "census-table"),
        _figure(svgs["census_map.svg"], "census-map"),
        "<h2>Per column, with the permutation null beside each</h2>",
        _html_table(tables["columns"], "column-table"),
        _figure(svgs["null_histograms.svg"], "null-histograms"),
        "<h2>Agreement beyond chance</h2>",
        _html_table(tables["chance"], "chance-table"),
        *[f"<p>{html.escape(w.replace('**', ''))}</p>" for w in _chance_words(tables)],
    ]
    if tables["controls"]:
        parts += [
            "<h2>Controls</h2>",
            _html_table(tables["controls"], "controls-table"),
            _figure(svgs["controls.svg"], "controls-plot"),
        ]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
