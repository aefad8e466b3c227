"""The report and certificate of a trials arm: census, rule recovery, intervals beside
the published ones, entries under both denominators, the null, settings census,
compare-runs (the page model is audit/report/render.py's; the templates decide how it looks)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from audit.core import disclosure
from audit.core.agreement import Agreement
from audit.files import write_atomic
from audit.report import limits, plots, render
from audit.seal import versus, vulns
from audit.trials import prereg as trials_prereg
from audit.trials.summary import TrialsCensusSummary

# every figure is always written (the rule declares them); the page shows those with data
FIGURES = ("task_rewards.svg", "intervals.svg", "null_histograms.svg", "settings.svg")


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _float(v: str | None) -> float | None:
    return float(v) if v not in (None, "", "nan") else None


def _section(
    title: str,
    ident: str,
    rows: list[dict[str, str]],
    cols: list[str],
    note: str = "",
    figures: list[render.Figure] | None = None,
    empty: str = "(none)",
) -> render.Section:
    table = render.table(rows, cols, f"{ident}-table")
    paragraphs = ([note] if note else []) + ([] if table else [empty])
    return render.Section(title, ident, paragraphs, table, figures or [])


def _task_rewards(res: Path, doc: dict) -> tuple[str, str]:
    """The per-task rewards plot under the first declared policy, and that policy."""
    rows = _rows(res / "recompute" / "pandas" / "run1" / "tasks.csv")
    # the first declared policy; a prereg using only built-in ones: the first in the table
    policy = next(iter(doc["policies"] or {}), None) or (rows[0]["policy"] if rows else "")
    rewards: dict[str, list[float]] = {}
    for r in rows:
        value = _float(r["reward_mean"])
        if r["policy"] == policy and value is not None:
            rewards.setdefault(r["entry"], []).append(value)
    return plots.task_rewards(rewards, policy), policy


def _score_column(doc: dict) -> str | None:
    measured = (doc.get("leaderboard") or {}).get("columns", {}).get("measured", {})
    return next((k for k, v in measured.items() if v["measure"] == "reward_macro"), None)


def _intervals(res: Path, doc: dict, iv: list[dict[str, str]]) -> str:
    """Published interval beside the recomputed ones; the entries' own when none is published."""
    if iv:
        score = _score_column(doc)
        centre = {
            r["row_id"]: _float(r["published"])
            for r in _rows(res / "recompute" / "pandas" / "run1" / "cells.csv")
            if r["column"] == score
        }
        rows = [
            {
                "label": f"{r['row_id']} [{r['policy']}]",
                "published": (centre.get(r["row_id"]), _float(r["published"])),
                "recomputed": (float(r["macro"]), float(r["recomputed"])),
                "bootstrap": (float(r["boot_low"]), float(r["boot_high"])),
            }
            for r in iv
        ]
        return plots.intervals(
            rows, "leaderboard row [policy]", "The interval: published beside the recomputed ones"
        )
    rows = [
        {
            "label": f"{r['entry']} [{r['policy']}]",
            "published": (None, None),
            "recomputed": (float(r["reward_macro"]), float(r["reward_ci95"])),
            "bootstrap": (float(r["reward_boot_low"]), float(r["reward_boot_high"])),
        }
        for r in _rows(res / "entries.csv")
        if r["reward_macro"] and r["reward_ci95"] and r["reward_boot_low"]
    ]
    return plots.intervals(
        rows, "entry [policy]", "The recomputed intervals of each entry (nothing published)"
    )


def _nulls(res: Path) -> tuple[list[dict[str, str]], str]:
    nulls = _rows(res / "recompute" / "pandas" / "run1" / "nulls.csv")
    hist: dict[str, dict[int, int]] = {}
    for r in _rows(res / "recompute" / "pandas" / "run1" / "null_hist.csv"):
        hist.setdefault(r["column"], {})[int(r["count"])] = int(r["draws"])
    observed = {r["column"]: int(r["observed"]) for r in nulls if r["observed"]}
    return nulls, plots.null_histograms(hist, observed)


def _figure(svgs: dict[str, str], name: str, alt: str) -> render.Figure:
    return render.Figure(name, alt, name.removesuffix(".svg").replace("_", "-"), svgs[name])


def _intro(summary: TrialsCensusSummary, agreement: Agreement) -> list[str]:
    c = summary.classes
    published = (
        ": " + ", ".join(f"{c[k]} {k}" for k in c if c[k]) + ". "
        f"{summary.exactly_one_rule} of {summary.measured_cells} published measured "
        "cells are reproduced by exactly one declared rule."
        if summary.cells
        else ": no leaderboard, so nothing published to reproduce; the recompute stands alone."
    )
    return [
        f"Prereg `{summary.arm_prereg}` (blake3 `{summary.prereg_blake3}`), "
        f"{summary.source} source. {summary.entries} entries, each under every declared "
        "policy, recomputed by both contestants, each run twice with identical bytes; "
        f"{agreement.disagreements} disagreement(s) between them.",
        f"{summary.cells} published cells ({summary.rows} rows x {summary.columns} "
        f"columns){published}",
    ]


def build(res_dir: str, out_dir: str) -> None:
    res, out = Path(res_dir), Path(out_dir)
    summary = TrialsCensusSummary.read(res / "census.json")
    agreement = Agreement.read(res / "agreement.json")
    doc = trials_prereg.load(res / "lock" / "prereg.yaml")
    settings = _rows(res / "settings" / "settings_all.csv")
    iv = _rows(res / "intervals.csv")
    nulls, null_svg = _nulls(res)
    rewards_svg, policy = _task_rewards(res, doc)
    svgs = {
        "task_rewards.svg": rewards_svg,
        "intervals.svg": _intervals(res, doc, iv),
        "null_histograms.svg": null_svg,
        "settings.svg": plots.settings_census(settings),
    }
    for name in FIGURES:
        write_atomic(out / name, svgs[name])
    c = summary.classes
    sections = [
        _section(
            "Census",
            "census",
            [{"class": k, "cells": str(v)} for k, v in c.items()] if summary.cells else [],
            ["class", "cells"],
            empty="No leaderboard: nothing published, nothing to classify.",
        )
    ]
    rec = _rows(res / "recovery.csv")
    if rec:
        sections += [
            _section(
                "Rule recovery: which declared rules reproduce each published cell",
                "recovery",
                rec,
                ["row_id", "column", "class", "reproducing", "exactly_one", "certain"],
                "Each rule as `policy:tier`; the certain tier holds whatever the rounded "
                "inputs were.",
            ),
            _section(
                "Rules reproducing every published cell of a row",
                "recovery-rows",
                _rows(res / "recovery_rows.csv"),
                [
                    "row_id",
                    "policies_all",
                    "exactly_one",
                    "policies_all_tier0",
                    "policies_all_certain",
                ],
            ),
        ]
    recomputed_only = _rows(res / "recomputed_only.csv")
    if recomputed_only:
        sections.append(
            _section(
                "Recomputed, not published",
                "recomputed-only",
                recomputed_only,
                ["row_id", "column", "rule", "recomputed", "tier"],
                "Columns the prereg declares `published: false` (e.g. pass@k and pass^k, "
                "trials contract 16.5): judged like any measured cell, each `not_published`.",
            )
        )
    sections.append(
        _section(
            "The interval: published beside the recompute",
            "intervals",
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
            "Method D (1.96 x sd of per-task means / sqrt(tasks)) and the seeded bootstrap "
            "over tasks.",
            [_figure(svgs, "intervals.svg", "published and recomputed intervals")],
            empty="No interval is published, so the plot shows each entry's recomputed "
            "intervals alone.",
        )
    )
    sections.append(
        _section(
            "Entries under every policy (attempted and scored are the two denominators)",
            "entries",
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
            f"The plot shows each entry's per-task mean rewards under policy `{policy}`, the "
            "first declared.",
            [_figure(svgs, "task_rewards.svg", "per-task rewards of each entry")],
        )
    )
    if nulls:
        sections.append(
            _section(
                "Permutation null, per published column",
                "nulls",
                nulls,
                [
                    "column",
                    "observed",
                    "null_mean",
                    "null_sd",
                    "null_max",
                    "draws_ge_observed",
                    "draws",
                    "p",
                ],
                "How many cells of each column would reproduce if the recomputed values were "
                "dealt to the wrong rows.",
                [_figure(svgs, "null_histograms.svg", "null histograms")],
            )
        )
    if settings:
        sections.append(
            _section(
                "Settings census (pooled over runs; per run in settings/settings.csv)",
                "settings",
                settings,
                ["setting", "status", "value", "trials", "runs"],
                "`not_recorded`: no trial recorded the setting; it is never guessed.",
                [_figure(svgs, "settings.svg", "settings census")],
            )
        )
    compare_txt = res / "compare" / "compare.txt"
    if compare_txt.is_file():
        pairs = _rows(res / "compare" / "pairs.csv")
        sections.append(
            render.Section(
                "compare-runs",
                "compare",
                ["As `compare-runs` printed it, then its per-task differences."],
                render.table(pairs, list(pairs[0]), "compare-table") if pairs else None,
                text=compare_txt.read_text(encoding="utf-8").rstrip("\n"),
            )
        )
    amended = versus.paragraphs(res)
    if amended is not None:
        sections.append(render.Section("Amendment: beside its parent", "versus", amended))
    page = render.Page(
        f"secondseat trials report: {summary.arm_prereg}",
        [*_intro(summary, agreement), vulns.line_of(res)],
        sections,
        limits.lines(res, doc, trials=True),
        disclosure.items(doc),
    )
    render.write(page, out)


def certificate(res: Path, doc: dict, head: str) -> str:
    from audit.seal.certificate import closing_lines, writer_lines

    summary = TrialsCensusSummary.read(res / "census.json")
    lock = json.loads((res / "lock" / "lock.json").read_text(encoding="utf-8"))
    shipped = json.loads((res / "lock" / "files.json").read_text(encoding="utf-8"))
    c = summary.classes
    lines = [
        f"# Certificate: {doc['name']} (trials v1)",
        "",
        *disclosure.markdown(doc),
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
        f"Of {summary.cells} published cells: "
        + ", ".join(f"{c[k]} {k}" for k in c if c[k])
        + (". " if summary.cells else "none (no leaderboard). ")
        + f"{summary.exactly_one_rule} of {summary.measured_cells} published measured cells "
        "are reproduced by exactly one declared rule.",
    ]
    for r in _rows(res / "recovery.csv"):
        lines.append(
            f"- {r['row_id']} / {r['column']}: {r['class']}"
            + (f", rules {r['reproducing']}" if r.get("reproducing") else "")
        )
    only = _rows(res / "recomputed_only.csv") if (res / "recomputed_only.csv").is_file() else []
    if only:
        lines += ["", "Recomputed, not published (columns declared `published: false`):"]
        lines += [
            f"- {r['row_id']} / {r['column']} [{r['rule']}]: {r['recomputed'] or 'no data'}"
            for r in only
        ]
    return "\n".join(lines + closing_lines(res, doc, head, trials=True))
