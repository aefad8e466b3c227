"""The report and certificate of a trials arm: census, rule recovery, intervals beside
the published ones, entries under both denominators, settings census, compare-runs."""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path

from audit.files import write_atomic
from audit.seal import vulns


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _md(rows: list[dict[str, str]], cols: list[str]) -> list[str]:
    if not rows:
        return ["(none)"]
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(r.get(c, "") for c in cols) + " |" for r in rows]
    return out


def sections(res: Path) -> list[tuple[str, list[dict[str, str]], list[str], str]]:
    """(title, rows, columns, note) for each part of the report."""
    out = []
    rec = _rows(res / "recovery.csv")
    if rec:
        out.append(
            (
                "Rule recovery: which declared rules reproduce each published cell",
                rec,
                ["row_id", "column", "class", "reproducing", "exactly_one", "certain"],
                "`policy:tier`; the certain tier holds whatever the rounded inputs were.",
            )
        )
        out.append(
            (
                "Rules reproducing every published cell of a row",
                _rows(res / "recovery_rows.csv"),
                [
                    "row_id",
                    "policies_all",
                    "exactly_one",
                    "policies_all_tier0",
                    "policies_all_certain",
                ],
                "",
            )
        )
    iv = _rows(res / "intervals.csv")
    if iv:
        out.append(
            (
                "The interval: published beside the recompute",
                iv,
                [
                    "row_id",
                    "policy",
                    "published",
                    "recomputed",
                    "tier",
                    "certain_tier",
                    "macro",
                    "boot_low",
                    "boot_high",
                ],
                "Method D (1.96 x sd of per-task means / sqrt(tasks)) and the seeded bootstrap over tasks.",
            )
        )
    out.append(
        (
            "Entries under every policy (attempted and scored are the two denominators)",
            _rows(res / "entries.csv"),
            [
                "entry",
                "policy",
                "tasks",
                "tasks_left_out",
                "selected",
                "scored",
                "errored",
                "unscored",
                "excluded",
                "values",
                "reward_macro",
                "reward_ci95",
                "reward_boot_low",
                "reward_boot_high",
                "pass_macro",
            ],
            "",
        )
    )
    settings = _rows(res / "settings" / "settings_all.csv")
    if settings:
        out.append(
            (
                "Settings census (pooled over runs; per run in settings/settings.csv)",
                settings,
                ["setting", "status", "value", "trials", "runs"],
                "`not_recorded`: no trial recorded the setting; it is never guessed.",
            )
        )
    pairs = _rows(res / "compare" / "pairs.csv")
    if pairs:
        out.append(("compare-runs: per-task differences", pairs, list(pairs[0]), ""))
    return out


def build(res_dir: str, out_dir: str) -> None:
    res = Path(res_dir)
    summary = json.loads((res / "census.json").read_text(encoding="utf-8"))
    agreement = json.loads((res / "agreement.json").read_text(encoding="utf-8"))
    intro = [
        f"# secondseat trials report: {summary['arm_prereg']}",
        "",
        f"Prereg blake3 `{summary['prereg_blake3']}`; {summary['source']} source; "
        f"{summary['entries']} entries recomputed by both contestants, "
        f"{agreement['disagreements']} disagreement(s), each run twice byte-identical.",
        vulns.line_of(res),
        "",
        "```",
        (res / "census.txt").read_text(encoding="utf-8").rstrip("\n"),
        "```",
    ]
    compare_txt = res / "compare" / "compare.txt"
    if compare_txt.is_file():
        intro += [
            "",
            "## compare-runs",
            "",
            "```",
            compare_txt.read_text(encoding="utf-8").rstrip("\n"),
            "```",
        ]
    md = list(intro)
    body_html = [f"<pre>{html.escape(chr(10).join(intro))}</pre>"]
    for title, rows, cols, note in sections(res):
        md += ["", f"## {title}", ""] + ([note, ""] if note else []) + _md(rows, cols)
        body_html.append(f"<h2>{html.escape(title)}</h2>")
        if note:
            body_html.append(f"<p>{html.escape(note)}</p>")
        body_html.append(
            "<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in cols) + "</tr>"
        )
        body_html += [
            "<tr>" + "".join(f"<td>{html.escape(r.get(c, ''))}</td>" for c in cols) + "</tr>"
            for r in rows
        ]
        body_html.append("</table>")
    out = Path(out_dir)
    write_atomic(out / "report.md", "\n".join(md) + "\n")
    page = (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>secondseat trials report</title>"
        "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px;"
        "font:12px monospace}</style></head><body>\n" + "\n".join(body_html) + "\n</body></html>\n"
    )
    write_atomic(out / "report.html", page)


def certificate(res: Path, doc: dict, head: str) -> str:
    from audit.certificate import anchor_lines, writer_lines

    summary = json.loads((res / "census.json").read_text(encoding="utf-8"))
    lock = json.loads((res / "lock" / "lock.json").read_text(encoding="utf-8"))
    shipped = json.loads((res / "lock" / "files.json").read_text(encoding="utf-8"))
    c = summary["classes"]
    lines = [
        f"# Certificate: {doc['name']} (trials v1)",
        "",
        f"Preregistration blake3 `{lock['prereg']['blake3']}`, locked before any comparison.",
        *[
            f"Bundle {role} `{t['file']}`: content digest `{t['content_digest']}`."
            for role, t in sorted(lock["bundle"].items())
        ],
        *writer_lines(shipped),
        vulns.line_of(res),
    ]
    if "jobs" in lock:
        lines.append(
            f"Jobs directory `{lock['jobs']['root']}`: {len(lock['jobs']['files'])} files hashed."
        )
    lines += [
        "",
        f"Of {summary['cells']} published cells: "
        + ", ".join(f"{c[k]} {k}" for k in c if c[k])
        + (". " if summary["cells"] else "none (no leaderboard). ")
        + f"{summary['exactly_one_rule']} of {summary['measured_cells']} published measured cells "
        "are reproduced by exactly one declared rule.",
    ]
    for r in _rows(res / "recovery.csv"):
        lines.append(
            f"- {r['row_id']} / {r['column']}: {r['class']}"
            + (f", rules {r['reproducing']}" if r.get("reproducing") else "")
        )
    lines += ["", *anchor_lines(head), ""]
    return "\n".join(lines)
