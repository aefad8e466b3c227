"""The rank census of an arm in words (report and certificate), from the agreed ranks.csv
(docs/contract.md, Ranks); the report's page part of it is audit/report/rank_section.py. Written only where the prereg declares `ranks`, so an arm
that does not keeps its bytes. No dataframe library."""

from __future__ import annotations

import csv
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

from audit.cells import record as cells_record
from audit.kinds.arm_kind import TRIALS, Kind
from audit.kinds.record import Prereg
from audit.text import numbers
from audit.trials import record as trials_record

TIE_MEANING = (
    "A tie in the rank census means the paired test on the rows' shared items did not "
    "separate them at the declared alpha after the declared correction: the data do not "
    "support their published order, which is not the same as showing the rows equal; few "
    "discordant items can leave a large published gap tied, and a rank interval is only as "
    "wide as the items drawn. A graded column's p-value is estimated from the declared "
    "draws and can never fall below one over the draws plus one."
)


def read(res: Path, name: str = "ranks.csv") -> list[dict[str, str]]:
    """ranks.csv (or rank_pairs.csv) as the contestants agreed it (the first contestant's
    copy)."""
    path = res / "recompute" / "pandas" / "run1" / name
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _spec(rec: Prereg) -> cells_record.Ranks | trials_record.Ranks:
    """The declared ranks block (every caller here has one)."""
    assert rec.ranks is not None
    return rec.ranks


def _is_mean(rec: Prereg, column: str) -> bool:
    """Whether a leaderboard prereg declares ``column`` a measured mean (a trials prereg
    has no recipes: False)."""
    if not isinstance(rec, cells_record.Prereg):
        return False
    spec = rec.measured.get(column)
    return spec is not None and spec.recipe == "mean"


def _graded(rec: Prereg) -> bool:
    """Whether a declared column is a mean (graded), tested by sign flips."""
    return any(_is_mean(rec, c) for c in _spec(rec).columns)


def _graded_column(rec: Prereg, kind: Kind, column: str) -> bool:
    """Whether a column's p comes from the seeded sign flips (a trials arm's every column,
    a leaderboard's mean columns), not from the exact McNemar test."""
    if kind is TRIALS:
        return True
    return _is_mean(rec, column)


def pair_p(rec: Prereg, kind: Kind, pair: dict[str, str]) -> str:
    """A pair's p and adjusted p, through the one number formatter: a graded column's p is
    a Monte Carlo estimate, printed down to its floor 1 / (1 + draws) and ``< f`` at it
    (numbers.perm_p, as the permutation null's); an exact McNemar p as an exact binomial
    p (numbers.chance_p, down to a tenth of alpha)."""
    spec = _spec(rec)
    if _graded_column(rec, kind, pair["column"]):
        p = numbers.perm_p(pair["p"], spec.draws)
    else:
        p = numbers.chance_p(pair["p"], spec.alpha)
    return f"p {p}, adjusted {numbers.stat(pair['p_adjusted'], 2)}"


def _floor(rec: Prereg, kind: Kind) -> str:
    """The method's words on the floor of a sign-flip p (none when no column has one)."""
    if kind is not TRIALS and not _graded(rec):
        return ""
    draws = _spec(rec).draws
    shown = numbers.perm_p(Fraction(1, draws + 1), draws)
    return (
        f"; a sign-flip p is estimated from the {draws:,} draws and is never below "
        f"1 / {draws + 1:,}, printed {shown}"
    )


def _method(rec: Prereg, kind: Kind) -> str:
    spec = _spec(rec)
    correction = {"holm": "Holm", "bh": "Benjamini-Hochberg"}[spec.correction]
    flips = f"a paired sign-flip permutation test of the summed differences from {spec.draws:,} seeded draws"
    if isinstance(spec, trials_record.Ranks):  # per-task means (trials contract, section 17)
        test = f"on the per-task means under policy {spec.policy}, {flips}"
    elif _graded(rec):
        test = f"exact McNemar on shared items, for graded (mean) columns {flips}"
    else:
        test = "exact McNemar on shared items"
    return (
        f"{test}, {correction}, alpha {spec.alpha}; rank intervals from {spec.draws:,} "
        f"paired bootstrap draws over items, seed {spec.seed}{_floor(rec, kind)}"
    )


def summary(
    rec: Prereg,
    rows: list[dict[str, str]],
    kind: Kind,
    pairs: list[dict[str, str]] | None = None,
) -> tuple[list[str], list[dict[str, str]]]:
    """Paragraphs (one per declared column: the top row's tie group and the adjacent pairs)
    and a table (row, column, published rank, rank interval, tie group, against the next,
    and with ``pairs``, rank_pairs.csv's lines, the p of the pair with the next)."""
    p_next = _next_p(rec, kind, rows, pairs or [])
    paragraphs = [f"Method: {_method(rec, kind)}."]
    for name in _spec(rec).columns:
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
            **({"test against the next": p_next.get(i, "-")} if pairs is not None else {}),
        }
        for i, r in enumerate(rows)
    ]
    return paragraphs, table


def _next_p(
    rec: Prereg, kind: Kind, rows: list[dict[str, str]], pairs: list[dict[str, str]]
) -> dict[int, str]:
    """For each line of ranks.csv (by position) with a next row in its column, the p of
    that pair (pair_p)."""
    by_pair = {(p["column"], p["row_a"], p["row_b"]): p for p in pairs}
    out = {}
    for i, (a, b) in enumerate(pairwise(rows)):
        pair = by_pair.get((a["column"], a["row_id"], b["row_id"]))
        if a["column"] == b["column"] and pair is not None:
            out[i] = pair_p(rec, kind, pair)
    return out


def adjacent_lines(rows: list[dict[str, str]], p_next: dict[int, str] | None = None) -> list[str]:
    """Each adjacent published pair and its verdict (and with ``p_next``, its p)."""
    out = []
    for i, (a, b) in enumerate(pairwise(rows)):
        if a["column"] == b["column"]:
            p = (p_next or {}).get(i)
            out.append(
                f"{a['column']}: {a['row_id']} above {b['row_id']}: {a['next_verdict']}"
                + (f" ({p})" if p else "")
            )
    return out


def certificate_lines(res: Path, rec: Prereg, kind: Kind) -> list[str]:
    """The certificate's rank section (Markdown); nothing when ranks is not declared."""
    if not rec.ranks:
        return []
    rows = read(res)
    paragraphs, _ = summary(rec, rows, kind)
    p_next = _next_p(rec, kind, rows, read(res, "rank_pairs.csv"))
    return [
        "",
        "## Ranks",
        "",
        *[f"- {p}" for p in paragraphs],
        "",
        *[f"- {line}" for line in adjacent_lines(rows, p_next)],
    ]
