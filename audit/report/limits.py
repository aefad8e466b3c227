""" "What this does not show": the one list that ends every report and every certificate.

Both kinds (leaderboard and trials) read the same result files for it: census.json (the
totals per class, through each kind's census record), census_cells.csv (class and best
tier of every published cell), the contestant's nulls.csv (draws), and the
locked prereg's record (tolerances, null_draws; audit/cells/record.py, audit/trials/record.py). Each item is one Markdown line, without its bullet.
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

from audit.cells.record import Prereg as LeaderboardPrereg
from audit.kinds.arm_kind import TRIALS, Kind
from audit.kinds.record import Prereg

TITLE = "What this does not show"


def _csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _names(names: list[str], limit: int = 8) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def p_floor(draws: int) -> str:
    """The smallest p the permutation null can give: (1 + 0) / (1 + draws)."""
    return (
        f"The permutation null drew {draws:,} times, so no p-value here is below "
        f"1/({draws:,}+1) = {float(Fraction(1, draws + 1)):.6f}: a p at that floor says that no "
        "draw reached the observed count, not that chance is ruled out any further."
    )


def loosest_tier(cells: list[dict[str, str]], rec: Prereg) -> str:
    """How many reproduced cells reproduce only at the loosest tier their tolerance declares."""
    reproduced = [c for c in cells if c["class"] == "reproduced"]
    at_loosest: dict[tuple[str, int, str], int] = {}
    for c in reproduced:
        tol = rec.cell_tolerance(c["row_id"], c["column"])
        if tol is None or not tol.tiers or c["best_tier"] != str(len(tol.tiers)):
            continue
        bound = repr(tol.tiers[-1])
        if tol.tier_unit == "last_digit":
            bound += " unit(s) of the cell's last digit"
        key = (c["column"], len(tol.tiers), bound)
        at_loosest[key] = at_loosest.get(key, 0) + 1
    n = sum(at_loosest.values())
    if not reproduced:
        return "No cell is counted reproduced, at any tier."
    detail = "; ".join(
        f"`{col}`: {k} at tier {tier}, abs diff <= {bound}"
        for (col, tier, bound), k in sorted(at_loosest.items())
    )
    return (
        "A cell counts as reproduced at any declared tier, the loosest included: "
        f"{n} of the {len(reproduced)} reproduced cells reproduce only at the loosest tier of "
        "their tolerance" + (f" ({detail})." if n else ".")
    )


def _nothing_published_leaderboard(res: Path) -> str:
    rows: dict[str, bool] = {}
    for r in _csv(res / "recompute" / "pandas" / "run1" / "cells.csv"):
        if r["kind"] == "measured":
            rows[r["row_id"]] = rows.get(r["row_id"], False) or r["published"] not in ("", "nan")
    empty = sorted(k for k, has in rows.items() if not has)
    if not empty:
        return (
            "Every leaderboard row publishes at least one measured value; an entry the board "
            "leaves out altogether cannot show here."
        )
    return (
        f"{len(empty)} leaderboard row(s) publish no measured value at all ({_names(empty)}): "
        "their cells are counted, but there is no claim in them to check."
    )


def _nothing_published_trials(res: Path, cells: list[dict[str, str]]) -> str:
    entries = sorted({r["entry"] for r in _csv(res / "entries.csv")})
    published: dict[str, bool] = {}
    for c in cells:
        if c["class"] not in ("structural", "no_antecedent"):
            published[c["row_id"]] = published.get(c["row_id"], False) or (
                c["class"] != "not_published"
            )
    off_board = [e for e in entries if e not in published]
    blank = sorted(r for r, has in published.items() if not has)
    unpublished = sum(c["class"] == "not_published" for c in cells)
    parts = [
        f"{len(off_board)} of the {len(entries)} recomputed entries have nothing published for "
        "them (no leaderboard row)"
        + (f": {_names(off_board)}" if off_board else "")
        + "; their numbers are recomputed and shown, and confirm or refute nothing."
    ]
    if blank:
        parts.append(
            f"{len(blank)} leaderboard row(s) publish no measured value ({_names(blank)})."
        )
    if unpublished:
        parts.append(
            f"{unpublished} published cell(s) are `not_published` (the board leaves them empty): "
            "a recomputed interval beside an empty cell is not a reproduction."
        )
    return " ".join(parts)


def _averages_real_values(rec: LeaderboardPrereg, column: str) -> bool:
    """A leaderboard column whose value is a mean of real instance values (a cost, say)."""
    spec = rec.measured[column]
    if spec.recipe == "mean_of_columns":
        return all(_averages_real_values(rec, c) for c in spec.columns)
    return spec.recipe in ("mean", "sum")


def _exposed_columns(cells: list[dict[str, str]], rec: Prereg) -> list[str]:
    """Reproduced columns whose agreement a derivation from the published values would fake
    best: leaderboard means of real values; trials columns compared under a tolerance (not
    exact-only counts)."""
    out = set()
    for c in cells:
        if c["class"] != "reproduced":
            continue
        if not isinstance(rec, LeaderboardPrereg):
            tol = rec.cell_tolerance(c["row_id"], c["column"])
            if tol.tiers:
                out.add(c["column"])
        elif _averages_real_values(rec, c["column"]):
            out.add(c["column"])
    return sorted(out)


def independence(res: Path, cells: list[dict[str, str]], rec: Prereg, kind: Kind) -> str:
    """Columns whose instance data may have been derived from the published values."""
    columns = _csv(res / "census_columns.csv")
    if columns and "constructed" in columns[0]:
        flagged = [c["column"] for c in columns if c["constructed"] in ("yes", "true")]
        if flagged:
            return (
                f"In {_names(flagged)} the agreement is more exact than independent instance "
                "data would give: the instance values may have been derived from the published "
                "ones, and there a reproduced cell is no evidence either way."
            )
        return (
            "No column agrees more exactly than independent instance data would give; that "
            "check cannot see a derivation that adds noise."
        )
    exposed = _exposed_columns(cells, rec)
    what = "averaged rewards" if kind is TRIALS else "means of real instance values"
    return (
        "Nothing in this arm tests whether the instance data were derived from the published "
        "values (per-instance costs scaled so that their mean equals the published figure, say); "
        "where they were, a reproduced cell is built in, not evidence. "
        + (
            f"Most exposed, the reproduced columns of {what}: {_names(exposed)}."
            if exposed
            else f"No column of {what} reproduces."
        )
    )


def _draws(res: Path, rec: Prereg) -> int:
    rows = _csv(res / "recompute" / "pandas" / "run1" / "nulls.csv")
    return max([int(r["draws"]) for r in rows if r.get("draws")] or [int(rec.null_draws)])


def lines(res: Path, rec: Prereg, kind: Kind) -> list[str]:
    """Every item of the section, in order, for the arm whose results are in ``res``."""
    summary = kind.entry("census_record").read(res / "census.json")
    c, source = summary.classes, getattr(summary, "source", None)
    cells = _csv(res / "census_cells.csv")
    rule, declared = kind.rule
    counted = [
        f"The {c['no_antecedent']} no-antecedent cells are not failures: nothing shipped in the "
        f"{kind.instances} can reproduce them, so they are neither "
        "confirmed nor refuted.",
        f"The {c['structural']} structural cells (identity and labels) were not compared.",
    ]
    # a class with no cell needs no disclaimer
    out = [t for t, k in zip(counted, ("no_antecedent", "structural"), strict=True) if c[k]]
    out += [
        f"A cell divergent under every declared {rule} says nothing "
        f"about {declared} that were not declared; a different but legitimate aggregation might "
        "reproduce it.",
        "A reproduced cell shows that the shipped instances support the published number under "
        "the stated tolerance; it does not show the instances themselves are right.",
        "Two implementations agreeing is not correctness: they share the contract, the bundle "
        "and the preregistration, and a mistake in any of those is shared too.",
        "The permutation null says how many cells would reproduce by chance matching of rows; "
        "it is not a test of any single cell.",
        p_floor(_draws(res, rec)),
        loosest_tier(cells, rec),
        _nothing_published_trials(res, cells)
        if kind is TRIALS
        else _nothing_published_leaderboard(res),
        independence(res, cells, rec, kind),
    ]
    if rec.ranks:  # declared only (docs/contract.md, Ranks; trials contract, 17)
        from audit.ranks.record import TIE_MEANING

        out.append(TIE_MEANING)
    if source == "registry":
        out.append(
            "The per-task table is the publisher's own registry, not raw trials: agreement shows "
            "that the publisher's two tables are consistent with each other, not that the trials "
            "behind them gave these numbers."
        )
    return out


def markdown(items: list[str]) -> list[str]:
    """The section as Markdown lines (heading, blank line, one bullet per item)."""
    return [f"## {TITLE}", "", *[f"- {i}" for i in items]]
