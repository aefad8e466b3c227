"""The report and certificate of a trials arm: census, rule recovery, intervals beside
the published ones, entries under both denominators, the null, settings census,
compare-runs (the page model is audit/report/render.py's; the templates decide how it looks)."""

from __future__ import annotations

import csv
from pathlib import Path

from audit.core import disclosure
from audit.core.agreement import Agreement
from audit.files import write_atomic
from audit.kinds.arm_kind import TRIALS
from audit.ranks import record as ranks
from audit.report import answer, limits, plots, rank_section, render
from audit.seal import timestamp, versus, vulns
from audit.seal.lock_record import read_files, read_lock
from audit.text import labels, numbers
from audit.trials import prereg as trials_prereg
from audit.trials.record import Prereg
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


def _task_rewards(res: Path, rec: Prereg) -> tuple[str, str]:
    """The per-task rewards plot under the first declared policy, and that policy."""
    rows = _rows(res / "recompute" / "pandas" / "run1" / "tasks.csv")
    # the first declared policy; a prereg using only built-in ones: the first in the table
    policy = next(iter(rec.policies), None) or (rows[0]["policy"] if rows else "")
    rewards: dict[str, list[float]] = {}
    for r in rows:
        value = _float(r["reward_mean"])
        if r["policy"] == policy and value is not None:
            rewards.setdefault(r["entry"], []).append(value)
    return plots.task_rewards(rewards, policy), policy


SCORES = ("reward_macro", "run_mean", "pooled_rate")  # measures of a score, not of a spread


def _score_column(rec: Prereg) -> str | None:
    """The published score column: the first measured column a score measure may reproduce
    (its published value is the centre a published spread sits on)."""
    return next((k for k, v in rec.measured().items() if set(v.measures) & set(SCORES)), None)


def _spread(rec: Prereg, column: str) -> str:
    """What a published spread column is: "se" when the rules declared for it include a
    standard error (se_*), else "ci95" (a 95% half-width)."""
    spec = rec.leaderboard.measured.get(column) if rec.leaderboard else None
    measures = spec.measures if spec is not None else ()
    return "se" if any(m.startswith("se_") for m in measures) else "ci95"


def _unit(rec: Prereg) -> str:
    """The axis's words for the board's unit: the prereg's scale (published values, and the
    entries' recomputed ones, are the fraction of 1 times it)."""
    scale = float(rec.scale or 1)
    if scale == 1:
        return "score as a fraction (0 to 1)"
    return f"score in points (0 to {scale:g})"


def _entries_title(entries: list[dict[str, str]]) -> str:
    """The entries section's heading, naming the policies its rows are under."""
    policies = list(dict.fromkeys(r["policy"] for r in entries))
    named = ", ".join(labels.rule(p) for p in policies) or "none"
    if set(policies) == {"attempted", "scored"}:
        named += ": the two denominators"
    return f"Entries under every declared policy ({named})"


def _six(text: str) -> float | None:
    value = _float(text)
    return None if value is None else round(value, 6)


def _alike(iv: list[dict[str, str]]) -> list[tuple[dict[str, str], str]]:
    """The interval rows to draw, each with its rule's words: the rows of one leaderboard row
    whose rules differ in rounding alone and whose drawn values are the same are one band,
    named "denominator · measure · any rounding" (three identical bands say nothing more).
    Values are compared at six decimals, finer than any plot shows."""
    drawn = ("row_id", "column", "published", "macro", "recomputed", "boot_low", "boot_high")
    groups: dict[tuple, list[dict[str, str]]] = {}
    for r in iv:
        parts = r["policy"].split("/")
        values = tuple(r[k] if k in ("row_id", "column") else _six(r[k]) for k in drawn)
        key = (*values, "/".join(parts[:-1]) if len(parts) == 3 else r["policy"])
        groups.setdefault(key, []).append(r)
    roundings = {r["policy"].split("/")[-1] for r in iv if r["policy"].count("/") == 2}
    out = []
    for key, members in groups.items():
        if len(members) > 1 and len(members) == len(roundings):
            out.append((members[0], labels.rule(key[-1]) + " · any rounding"))
        else:
            out += [(r, labels.rule(r["policy"])) for r in members]
    return out


def _intervals(res: Path, rec: Prereg, iv: list[dict[str, str]]) -> str:
    """Published interval beside the recomputed ones (the entries' own when none is
    published), in the board's unit."""
    unit = _unit(rec)
    if iv:
        score = _score_column(rec)
        centre = {
            r["row_id"]: _float(r["published"])
            for r in _rows(res / "recompute" / "pandas" / "run1" / "cells.csv")
            if r["column"] == score
        }
        rows = [
            {
                "label": f"{r['row_id']} [{rule}]",
                "published": (centre.get(r["row_id"]), _float(r["published"])),
                "spread": _spread(rec, r["column"]),
                "published_text": r["published"],
                "recomputed": (float(r["macro"]), float(r["recomputed"])),
                "bootstrap": (float(r["boot_low"]), float(r["boot_high"])),
            }
            for r, rule in _alike(iv)
        ]
        return plots.intervals(
            rows,
            "leaderboard row [rule]",
            "The interval: published beside the recomputed ones",
            unit,
        )
    rows = [
        {
            "label": f"{r['entry']} [{labels.rule(r['policy'])}]",
            "published": (None, None),
            "recomputed": (float(r["reward_macro"]), float(r["reward_ci95"])),
            "bootstrap": (float(r["reward_boot_low"]), float(r["reward_boot_high"])),
        }
        for r in _rows(res / "entries.csv")
        if r["reward_macro"] and r["reward_ci95"] and r["reward_boot_low"]
    ]
    return plots.intervals(
        rows,
        "entry [rule]",
        "The recomputed intervals of each entry (nothing published)",
        unit,
    )


def _nulls(res: Path) -> tuple[list[dict[str, str]], str]:
    nulls = _rows(res / "recompute" / "pandas" / "run1" / "nulls.csv")
    hist: dict[str, dict[int, int]] = {}
    for r in _rows(res / "recompute" / "pandas" / "run1" / "null_hist.csv"):
        hist.setdefault(r["column"], {})[int(r["count"])] = int(r["draws"])
    observed = {r["column"]: int(r["observed"]) for r in nulls if r["observed"]}
    return nulls, plots.null_histograms(hist, observed)


def _figure(svgs: dict[str, str], name: str, alt: str, ident: str = "") -> render.Figure:
    """A figure, its id the file's stem in kebab case unless ``ident`` names one: a figure
    whose stem is its section's id takes "<stem>-plot" (ids are unique in the page)."""
    ident = ident or name.removesuffix(".svg").replace("_", "-")
    return render.Figure(name, alt, ident, svgs[name])


def _intro(summary: TrialsCensusSummary, agreement: Agreement) -> list[str]:
    c = summary.classes
    first = (
        f"Prereg `{summary.arm_prereg}` (blake3 `{summary.prereg_blake3}`), "
        f"{summary.source} source. {summary.entries} entries, each under every declared "
        "policy, recomputed by both contestants, each run twice with identical bytes; "
        f"{agreement.disagreements} disagreement(s) between them."
    )
    if not summary.cells:
        return [
            "No leaderboard is published for this arm, so nothing published is reproduced or "
            "refuted: the recompute stands alone, shown below entry by entry.",
            first,
        ]
    return [
        first,
        f"{summary.cells} published cells ({summary.rows} rows x {summary.columns} columns): "
        + ", ".join(f"{c[k]} {labels.label(k)}" for k in c if c[k])
        + f". {summary.exactly_one_rule} of {summary.measured_cells} published measured cells "
        "are reproduced by exactly one declared rule.",
    ]


def _fmt(rows: list[dict[str, str]], keys: dict[str, int]) -> list[dict[str, str]]:
    """The rows with the named numeric fields at ``keys[field]`` significant digits."""
    return [
        {k: (numbers.stat(v, keys[k]) if k in keys and v else v) for k, v in r.items()}
        for r in rows
    ]


def _recovery_sections(res: Path) -> list[render.Section]:
    """Per published measured column: which declared rules reproduce each entry's cell (rules
    x entries, the tier reached; blank: that rule does not reproduce the cell)."""
    rec = _rows(res / "recovery.csv")
    out = []
    for column in dict.fromkeys(r["column"] for r in rec if r["class"] != "not_published"):
        mine = [r for r in rec if r["column"] == column]
        entries = [r["row_id"] for r in mine]
        grid: dict[str, dict[str, str]] = {}
        for r in mine:
            certain = {p.rsplit(":", 1)[0] for p in (r.get("certain") or "").split(";") if p}
            for item in (r["reproducing"] or "").split(";"):
                if not item:
                    continue
                rule, tier = item.rsplit(":", 1)
                mark = f"tier {tier}" + (" (certain)" if rule in certain else "")
                grid.setdefault(rule, {})[r["row_id"]] = mark
        rows = [
            {"rule": labels.rule(rule), **{e: grid[rule].get(e, "") for e in entries}}
            for rule in sorted(grid, key=lambda k: (min(grid[k].values()), k))
        ]
        classes = ", ".join(f"{r['row_id']}: {labels.label(r['class'])}" for r in mine)
        out.append(
            render.Section(
                f"Rule recovery: {column}",
                f"recovery-{column}",
                [
                    f"Each declared rule that reproduces a published `{column}` cell, and the tier "
                    "it reaches there; a blank: that rule does not reproduce that entry's cell "
                    "(certain: the tier holds whatever the rounded inputs were). "
                    f"Census: {classes}.",
                ]
                + ([] if rows else ["No declared rule reproduces any cell of this column."]),
                render.table(rows, ["rule", *entries], f"recovery-{column}-table", tuple(entries))
                if rows
                else None,
            )
        )
    return out


def _interval_rows(res: Path, rec: Prereg) -> list[dict[str, str]]:
    """Each published interval cell beside its recomputed value under the rule that reproduced
    it (the tightest tier), or the nearest rule when none did; then Method D's half-width and
    the bootstrap of the same entry, a different measure, named as such."""
    cells = [
        r
        for r in _rows(res / "recompute" / "pandas" / "run1" / "cells.csv")
        if r["kind"] == "measured"
    ]
    iv_columns = {r["column"] for r in _rows(res / "intervals.csv")}
    entries = {(e["entry"], e["policy"]): e for e in _rows(res / "entries.csv")}
    out = []
    for key in dict.fromkeys(
        (r["row_id"], r["column"]) for r in cells if r["column"] in iv_columns
    ):
        mine = [r for r in cells if (r["row_id"], r["column"]) == key]
        tiered = [r for r in mine if r["tier"].isdigit()]
        best = min(tiered, key=lambda r: int(r["tier"])) if tiered else answer.nearest(mine)
        if best is None:
            continue
        tol = rec.tolerance_of(key[0], key[1])
        places = numbers.places_for(
            tol, int(best["tier"]) if best["tier"].isdigit() else None, best["published"]
        )
        e = entries.get((key[0], best["policy"].split("/", 1)[0]), {})
        out.append(
            {
                "row_id": key[0],
                "column": key[1],
                "published": numbers.at_places(best["published"], places),
                "rule": labels.rule(best["policy"]),
                "recomputed": numbers.at_places(best["recomputed"], places),
                "tier": best["tier"] if best["tier"].isdigit() else labels.label(best["tier"]),
                "reward_ci95": numbers.stat(e.get("reward_ci95"), 4),
                "reward_boot_low": numbers.stat(e.get("reward_boot_low"), 4),
                "reward_boot_high": numbers.stat(e.get("reward_boot_high"), 4),
            }
        )
    return out


def build(res_dir: str, out_dir: str) -> None:
    res, out = Path(res_dir), Path(out_dir)
    summary = TrialsCensusSummary.read(res / "census.json")
    agreement = Agreement.read(res / "agreement.json")
    rec = trials_prereg.load_record(res / "lock" / "prereg.yaml")
    settings = _rows(res / "settings" / "settings_all.csv")
    iv = _rows(res / "intervals.csv")
    nulls, null_svg = _nulls(res)
    rewards_svg, policy = _task_rewards(res, rec)
    svgs = {
        "task_rewards.svg": rewards_svg,
        "intervals.svg": _intervals(res, rec, iv),
        "null_histograms.svg": null_svg,
        "settings.svg": plots.settings_census(settings),
    }
    for name in FIGURES:
        write_atomic(out / name, svgs[name])
    c = summary.classes
    sections = []
    if summary.cells:
        sections.append(
            _section(
                "Census",
                "census",
                [{"class": labels.label(k), "cells": numbers.count(v)} for k, v in c.items()],
                ["class", "cells"],
            )
        )
    sections += _recovery_sections(res)
    recomputed_only = _rows(res / "recomputed_only.csv")
    if recomputed_only:
        sections.append(
            _section(
                "Recomputed, not published",
                "recomputed-only",
                [
                    {
                        **r,
                        "rule": labels.rule(r["rule"]),
                        "recomputed": numbers.stat(r["recomputed"], 4),
                        "tier": labels.label(r["tier"]),
                    }
                    for r in recomputed_only
                ],
                ["row_id", "column", "rule", "recomputed", "tier"],
                "Columns the prereg declares `published: false` (e.g. pass@k and pass^k, "
                "trials contract 16.5): judged like any measured cell, each `not_published`.",
            )
        )
    sections.append(
        _section(
            "The interval: published beside the recompute",
            "intervals",
            _interval_rows(res, rec) if iv else [],
            [
                "row_id",
                "column",
                "published",
                "rule",
                "recomputed",
                "tier",
                "reward_ci95",
                "reward_boot_low",
                "reward_boot_high",
            ],
            "Each published interval cell beside its recomputed value under the rule that "
            "reproduced it at the tightest tier (the nearest rule where none did): the same "
            "measure the census judged. The last three columns are another measure, shown for "
            "every entry: Method D (1.96 x sd of per-task means / sqrt(tasks)) and the seeded "
            "bootstrap over tasks.",
            [
                _figure(
                    svgs, "intervals.svg", "published and recomputed intervals", "intervals-plot"
                )
            ],
            empty="No interval is published, so the plot shows each entry's recomputed "
            "intervals alone.",
        )
    )
    sections.append(
        _section(
            _entries_title(_rows(res / "entries.csv")),
            "entries",
            _fmt(
                [{**r, "policy": labels.rule(r["policy"])} for r in _rows(res / "entries.csv")],
                dict.fromkeys(
                    [
                        "reward_macro",
                        "reward_ci95",
                        "reward_boot_low",
                        "reward_boot_high",
                        "pass_macro",
                    ],
                    4,
                ),
            ),
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
                [
                    {
                        **r,
                        "null_mean": numbers.stat(r["null_mean"], 3),
                        "null_sd": numbers.stat(r["null_sd"], 3),
                        "p": numbers.perm_p(r["p"], r["draws"]),
                    }
                    for r in nulls
                ],
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
                [{**r, "status": labels.label(r["status"])} for r in settings],
                ["setting", "status", "value", "trials", "runs"],
                "`not_recorded`: no trial recorded the setting; it is never guessed.",
                [_figure(svgs, "settings.svg", "settings census", "settings-plot")],
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
    if rec.ranks:  # declared only (section 17): an arm without it keeps its bytes
        sections.append(rank_section.section(res, rec, out, TRIALS))
    amended = versus.paragraphs(res)
    if amended is not None:
        sections.append(render.Section("Amendment: beside its parent", "versus", amended))
    page = render.Page(
        f"secondseat trials report: {summary.arm_prereg}",
        _intro(summary, agreement),
        [
            *sections,
            render.Section(
                "Environment", "environment", [vulns.line_of(res), timestamp.line_of(res)]
            ),
        ],
        limits.lines(res, rec, TRIALS),
        disclosure.items(rec.disclosure),
        answer.build(res, rec, TRIALS),
    )
    render.write(page, out)


def certificate(res: Path, rec: Prereg, head: str) -> str:
    """The certificate of the trials arm in ``res``, its locked prereg's record ``rec``,
    anchored at ``head``."""
    from audit.report.certificate import closing_lines, writer_lines

    summary = TrialsCensusSummary.read(res / "census.json")
    lock = read_lock(res / "lock" / "lock.json")
    shipped = read_files(res / "lock" / "files.json")
    c = summary.classes
    lines = [
        f"# Certificate: {rec.name} (trials v1)",
        "",
        *disclosure.markdown(rec.disclosure),
        "",
        # the answer first, as the report's first screen and the terminal show it
        *answer.markdown(answer.build(res, rec, TRIALS)),
        "",
        # feasible: the feasibility section goes here
        *ranks.certificate_lines(res, rec, TRIALS)[1:],
        *([""] if rec.ranks else []),
        "## Provenance",
        "",
        f"Preregistration blake3 `{lock.prereg_blake3}`, locked before any comparison.",
        *[
            f"Bundle {role} `{t.file}`: content digest `{t.content_digest}`."
            for role, t in sorted(lock.bundle.items())
        ],
        *writer_lines(shipped),
        vulns.line_of(res),
        timestamp.line_of(res),
    ]
    if lock.jobs is not None:
        lines.append(f"Jobs directory `{lock.jobs.root}`: {len(lock.jobs.files)} files hashed.")
    lines += [
        "",
        f"Of {summary.cells} published cells: "
        + ", ".join(f"{c[k]} {labels.label(k)}" for k in c if c[k])
        + (". " if summary.cells else "none (no leaderboard). ")
        + f"{summary.exactly_one_rule} of {summary.measured_cells} published measured cells "
        "are reproduced by exactly one declared rule.",
    ]
    for r in _rows(res / "recovery.csv"):
        rules = [item.rsplit(":", 1) for item in (r.get("reproducing") or "").split(";") if item]
        lines.append(
            f"- {r['row_id']} / {r['column']}: {labels.label(r['class'])}"
            + (
                ", by " + "; ".join(f"{labels.rule(k)} (tier {t})" for k, t in rules)
                if rules
                else ""
            )
        )
    only = _rows(res / "recomputed_only.csv") if (res / "recomputed_only.csv").is_file() else []
    if only:
        lines += ["", "Recomputed, not published (columns declared `published: false`):"]
        lines += [
            f"- {r['row_id']} / {r['column']} [{labels.rule(r['rule'])}]: "
            f"{numbers.stat(r['recomputed'], 4) if r['recomputed'] else 'no data'}"
            for r in only
        ]
    return "\n".join(lines + closing_lines(res, rec, head, TRIALS))
