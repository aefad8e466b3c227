"""The rank census of an arm in words (report and certificate), from the agreed ranks.csv
(docs/contract.md, Ranks); the report's page part of it is audit/report/rank_section.py. Written only where the prereg declares `ranks`, so an arm
that does not keeps its bytes. No dataframe library."""

from __future__ import annotations

import csv
from itertools import pairwise
from pathlib import Path

from audit.kinds.arm_kind import TRIALS, Kind

TIE_MEANING = (
    "A tie in the rank census means the paired test on the rows' shared items did not "
    "separate them at the declared alpha after the declared correction: the data do not "
    "support their published order, which is not the same as showing the rows equal; few "
    "discordant items can leave a large published gap tied, and a rank interval is only as "
    "wide as the items drawn. A graded column's p-value is estimated from the declared "
    "draws and can never fall below one over the draws plus one."
)


def read(res: Path) -> list[dict[str, str]]:
    """ranks.csv as the contestants agreed it (the first contestant's copy)."""
    path = res / "recompute" / "pandas" / "run1" / "ranks.csv"
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _graded(doc: dict) -> bool:
    """Whether a declared column is a mean (graded), tested by sign flips."""
    measured = (doc.get("columns") or {}).get("measured") or {}
    return any((measured.get(c) or {}).get("recipe") == "mean" for c in doc["ranks"]["columns"])


def _method(doc: dict, kind: Kind) -> str:
    spec = doc["ranks"]
    correction = {"holm": "Holm", "bh": "Benjamini-Hochberg"}[spec["correction"]]
    flips = f"a paired sign-flip permutation test of the summed differences from {spec['draws']:,} seeded draws"
    if kind is TRIALS:  # per-task means (trials contract, section 17)
        test = f"on the per-task means under policy {spec['policy']}, {flips}"
    elif _graded(doc):
        test = f"exact McNemar on shared items, for graded (mean) columns {flips}"
    else:
        test = "exact McNemar on shared items"
    return (
        f"{test}, {correction}, alpha {spec['alpha']}; rank intervals from {spec['draws']:,} "
        f"paired bootstrap draws over items, seed {spec['seed']}"
    )


def summary(
    doc: dict, rows: list[dict[str, str]], kind: Kind
) -> tuple[list[str], list[dict[str, str]]]:
    """Paragraphs (one per declared column: the top row's tie group and the adjacent pairs)
    and a table (row, column, published rank, rank interval, tie group, against the next)."""
    spec = doc["ranks"]
    paragraphs = [f"Method: {_method(doc, kind)}."]
    for name in spec["columns"]:
        mine = [r for r in rows if r["column"] == name]
        if not mine:
            paragraphs.append(f"{name}: no row has a published value.")
            continue
        adjacent = [r["next_verdict"] for r in mine if r["next_verdict"]]
        counts = {v: adjacent.count(v) for v in ("separated", "tied", "reversed")}
        group = mine[0]["tie_group"].split("; ")
        paragraphs.append(
            f"{name}: the top row {mine[0]['row_id']}'s tie group holds {len(group)} of "
            f"{len(mine)} rows ({mine[0]['tie_group']}). Of {len(adjacent)} adjacent published "
            f"pairs, {counts['separated']} separated, {counts['tied']} tied, "
            f"{counts['reversed']} reversed."
        )
    table = [
        {
            "column": r["column"],
            "row": r["row_id"],
            "published rank": r["published_rank"],
            "rank interval": f"{r['rank_lo']} to {r['rank_hi']}",
            "passes / items": f"{r['passes'] or '-'} / {r['items']}",
            "tie group size": str(len(r["tie_group"].split("; "))),
            "against the next": r["next_verdict"] or "-",
        }
        for r in rows
    ]
    return paragraphs, table


def adjacent_lines(rows: list[dict[str, str]]) -> list[str]:
    """Each adjacent published pair and its verdict."""
    out = []
    for a, b in pairwise(rows):
        if a["column"] == b["column"]:
            out.append(f"{a['column']}: {a['row_id']} above {b['row_id']}: {a['next_verdict']}")
    return out


def certificate_lines(res: Path, doc: dict, kind: Kind) -> list[str]:
    """The certificate's rank section (Markdown); nothing when ranks is not declared."""
    if not doc.get("ranks"):
        return []
    rows = read(res)
    paragraphs, _ = summary(doc, rows, kind)
    return [
        "",
        "## Ranks",
        "",
        *[f"- {p}" for p in paragraphs],
        "",
        *[f"- {line}" for line in adjacent_lines(rows)],
    ]
