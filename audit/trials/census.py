"""Summarise an agreed trials recompute (trials contract sections 8-9): the class of
every published cell, which declared rules reproduce it and whether exactly one
does, the interval recompute beside the published interval, and each entry
under both denominators. Recomputes nothing: it reads one agreed contestant's
canonical CSVs."""

from __future__ import annotations

from pathlib import Path

from audit.cells.census import rows_csv
from audit.core import disclosure
from audit.core.agree import read_csv
from audit.core.agreement import Agreement
from audit.errors import FAILED, AuditError
from audit.files import write_atomic
from audit.seal.lock_record import read_lock
from audit.trials.record import Column, Prereg
from audit.trials.settings_census import _csv
from audit.trials.summary import TrialsCensusSummary

CLASSES = ("structural", "no_antecedent", "reproduced", "divergent", "no_data", "not_published")


FILES = [
    "tasks.csv",
    "entries.csv",
    "cells.csv",
    "census.csv",
    "recovery.csv",
    "recovery_rows.csv",
    "nulls.csv",
    "null_hist.csv",
    "runs.csv",
    "pass_k.csv",
    "pass_k_tasks.csv",
]
INTERVALS_HEADER = [
    "row_id",
    "column",
    "measure",
    "policy",
    "published",
    "recomputed",
    "abs_diff",
    "tier",
    "bound",
    "certain_tier",
    "macro",
    "boot_low",
    "boot_high",
]


RECOMPUTED_ONLY_HEADER = ["row_id", "column", "rule", "recomputed", "tier"]


def read_rows(path: Path) -> list[dict[str, str]]:
    import csv

    if not path.is_file():
        raise AuditError("missing_file", str(path), "contestant output is missing")
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def rule_parts(spec: Column, rule: str) -> tuple[str, str]:
    """(policy, measure) of a cell's rule name: `policy[/measure][/rounding]`, the measure
    part present when the column lists its measures (trials contract section 8.1)."""
    parts = rule.split("/")
    if spec.measure_listed:
        return parts[0], parts[1] if len(parts) > 1 else ""
    return parts[0], spec.measures[0]


def summarise(
    agreement: str, contestant_dir: str, prereg_path: str, lock_path: str, out_dir: str
) -> TrialsCensusSummary:
    from audit.trials.prereg import load_record

    rep = Agreement.read(agreement)
    if rep.disagreements:
        raise AuditError(
            "implementations_disagree",
            agreement,
            f"{rep.disagreements} disagreement(s) between the implementations; "
            "no census is drawn from contested cells (see agreement.md)",
            FAILED,
        )
    doc = load_record(prereg_path)
    lock = read_lock(lock_path)
    cdir = Path(contestant_dir)
    census = read_rows(cdir / "census.csv")
    recovery = read_rows(cdir / "recovery.csv")
    rec_rows = read_rows(cdir / "recovery_rows.csv")
    cells = read_rows(cdir / "cells.csv")
    entries = read_rows(cdir / "entries.csv")
    lb = doc.leaderboard
    totals = {c: sum(1 for r in census if r["class"] == c) for c in CLASSES}
    unknown = sum(1 for r in census if r["class"] not in CLASSES)
    if lb is not None:
        rows = lock.bundle["leaderboard"].rows
        # a measured column declared `published: false` is in no table, yet its cells
        # are classified like any other (trials contract section 16.5)
        extra = [n for n, spec in lb.measured.items() if not spec.published]
        cols = lock.bundle["leaderboard"].columns + len(extra)
    else:
        rows = cols = 0
        extra = []
    if unknown or len(census) != rows * cols:
        raise AuditError(
            "census_incomplete",
            str(cdir / "census.csv"),
            f"{len(census)} cells classified ({unknown} with an unknown class), "
            f"the leaderboard has {rows} x {cols} = {rows * cols}",
            FAILED,
        )
    measured = lb.measured if lb else {}
    by_entry = {(e["entry"], e["policy"]): e for e in entries}
    intervals = []
    for c in cells:
        if c["column"] not in measured:
            continue
        policy, m = rule_parts(measured[c["column"]], c["policy"])
        if m not in ("reward_ci95", "pass_ci95"):
            continue
        base = m.split("_")[0]
        e = by_entry.get((c["row_id"], policy), {})
        intervals.append(
            [
                c["row_id"],
                c["column"],
                m,
                c["policy"],
                c["published"],
                c["recomputed"],
                c["abs_diff"],
                c["tier"],
                c["bound"],
                c["certain_tier"],
                e.get(f"{base}_macro", ""),
                e.get(f"{base}_boot_low", ""),
                e.get(f"{base}_boot_high", ""),
            ]
        )
    recomputed_only = [
        [c["row_id"], c["column"], c["policy"], c["recomputed"], c["tier"]]
        for c in cells
        if c["column"] in extra
    ]
    measured_cells = [r for r in recovery if r["class"] != "not_published"]
    summary = TrialsCensusSummary(
        arm_prereg=doc.name,
        prereg_blake3=lock.prereg_blake3,
        source=doc.source.kind,
        rows=rows,
        columns=cols,
        cells=rows * cols,
        classes=totals,
        measured_cells=len(measured_cells),
        exactly_one_rule=sum(1 for r in measured_cells if r["exactly_one"] == "true"),
        rows_with_one_rule=sum(1 for r in rec_rows if r["exactly_one"] == "true"),
        entries=len({e["entry"] for e in entries}),
        unpublished_columns=extra,
    )
    out = Path(out_dir)
    write_atomic(out / "census.json", summary.to_json())
    for name in ("census.csv", "recovery.csv", "recovery_rows.csv", "entries.csv"):
        dst = "census_cells.csv" if name == "census.csv" else name
        write_atomic(out / dst, (cdir / name).read_bytes())
    write_atomic(out / "intervals.csv", _csv(INTERVALS_HEADER, intervals))
    write_atomic(
        out / "census_rows.csv",
        rows_csv(read_csv(cdir / "census.csv"), doc.disclosure, CLASSES),
    )
    write_atomic(out / "recomputed_only.csv", _csv(RECOMPUTED_ONLY_HEADER, recomputed_only))
    text = render(summary, recovery, rec_rows, intervals, entries, doc, recomputed_only)
    write_atomic(out / "census.txt", text)
    print(text, end="")
    return summary


def render(
    summary: TrialsCensusSummary,
    recovery: list[dict[str, str]],
    rec_rows: list[dict[str, str]],
    intervals: list[list[str]],
    entries: list[dict[str, str]],
    doc: Prereg,
    recomputed_only: list[list[str]] | None = None,
) -> str:
    c = summary.classes
    lines = [
        f"secondseat trials census: prereg {summary.arm_prereg} "
        f"(blake3 {summary.prereg_blake3[:16]}...), {summary.source} source",
        f"{summary.cells} published cells = {summary.rows} rows x {summary.columns} columns",
        *[f"  {name:<14}{c[name]:>6}" for name in CLASSES],
        *disclosure.text(doc.disclosure),
        "",
    ]
    if recovery:
        lines.append("Rule recovery (policy:tier; certain tiers allow for rounded inputs):")
        lines.append(f"{'row':<48}{'column':<10}{'class':<14}{'reproducing':<16}{'one?':<6}certain")
        for r in recovery:
            if len(r["reproducing"]) < 16 and len(r["certain"]) < 40:
                lines.append(
                    f"{r['row_id']:<48}{r['column']:<10}{r['class']:<14}{r['reproducing']:<16}"
                    f"{r['exactly_one']:<6}{r['certain']}"
                )
                continue
            # long rule names (policy/measure/rounding): one list per line, best first
            lines.append(
                f"{r['row_id']:<48}{r['column']:<10}{r['class']:<14}{'(below)':<16}"
                f"{r['exactly_one']:<6}"
                + ("(below)" if r["certain"] != r["reproducing"] else "(same)")
            )
            lines.append(f"    best: {r['best_policies'] or '-'}")
            lines.append(f"    reproducing: {r['reproducing'] or '-'}")
            if r["certain"] != r["reproducing"]:
                lines.append(f"    certain: {r['certain'] or '-'}")
        lines.append("")
        lines.append("Per row, the rules reproducing every published cell:")
        for r in rec_rows:
            lines.append(
                f"  {r['row_id']}: {r['policies_all'] or '-'} (exactly one: {r['exactly_one'] or '-'};"
                f" at tier 0: {r['policies_all_tier0'] or '-'}; certain: {r['policies_all_certain'] or '-'})"
            )
        lines.append("")
    if intervals:
        lines.append(
            "Interval: published beside recomputed (Method D) and the bootstrap over tasks:"
        )
        for iv in intervals:
            lines.append(
                f"  {iv[0]} {iv[1]} [{iv[3]}]: published {iv[4] or 'not published'}, "
                f"recomputed {iv[5]} (tier {iv[7]}, certain {iv[9]}); "
                f"macro {iv[10]} boot [{iv[11]}, {iv[12]}]"
            )
        lines.append("")
    if recomputed_only:
        lines.append(
            "Recomputed, not published (columns declared published: false; class "
            "not_published, every rule's value):"
        )
        for r in recomputed_only:
            lines.append(f"  {r[0]} {r[1]} [{r[2]}]: {r[3] or 'no data'} (tier {r[4]})")
        lines.append("")
    lines.append("Entries (attempted / scored are the two denominators):")
    lines.append(
        f"{'entry':<48}{'policy':<14}{'tasks':>6}{'out':>5}{'sel':>5}{'scr':>5}{'err':>5}"
        f"{'uns':>5}{'macro':>12}{'ci95':>11}{'boot low':>11}{'boot high':>11}{'pass':>11}"
    )
    for e in entries:
        lines.append(
            f"{e['entry']:<48}{e['policy']:<14}{e['tasks']:>6}{e['tasks_left_out']:>5}"
            f"{e['selected']:>5}{e['scored']:>5}{e['errored']:>5}{e['unscored']:>5}"
            f"{e['reward_macro']:>12}{e['reward_ci95']:>11}{e['reward_boot_low']:>11}"
            f"{e['reward_boot_high']:>11}{e['pass_macro']:>11}"
        )
    return "\n".join(lines) + "\n"
