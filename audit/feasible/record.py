"""The feasibility of an arm's cells in words (report and certificate), from the agreed
feasibility.csv (docs/contract.md, Feasibility). No dataframe library."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

from audit.cells.record import Feasibility, Prereg
from audit.feasible.decimals import fixed

NOT_DECLARED = (
    "No column declares the count it is over (prereg key feasibility), so no published value "
    "was checked for whether any count can produce it."
)


def read(res: Path) -> list[dict[str, str]]:
    """feasibility.csv as the contestants agreed it (the first contestant's copy)."""
    path = res / "recompute" / "pandas" / "run1" / "feasibility.csv"
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _count(s: str, n: str, scale: int) -> str:
    return f"{s}/{n} = {fixed(Fraction(scale * int(s), int(n)), 2)}"


def infeasible_line(r: dict[str, str], scale: int) -> str:
    """One infeasible cell: its value, its N and the counts nearest on either side."""
    near = [_count(s, r["n"], scale) for s in (r["low"], r["high"]) if s]
    nearest = "; nearest " + " and ".join(near) if near else ""
    return (
        f"{r['row_id']} {r['column']}: published {r['published']} at N = {r['n']}: "
        f"no count gives it{nearest}"
    )


def over_words(over: int | tuple[str, str | None]) -> str:
    """What a declared column's N is, in words (``Feasibility.over``: N, ("column",
    name), or ("instances", group or None))."""
    if isinstance(over, int):
        return f"N = {over}"
    what, name = over
    if what == "column":
        return f"N in column {name}"
    return "N = each row's instance rows" + (f" in group {name}" if name else "")


def summary(rec: Prereg, rows: list[dict[str, str]]) -> tuple[list[str], list[dict[str, str]]]:
    """Paragraphs (one per declared column, then the infeasible cells) and a table of the
    infeasible cells (row, column, published, N, nearest below, nearest above)."""
    declared: dict[str, Feasibility] = dict(rec.feasibility)
    if not declared:
        return [NOT_DECLARED], []
    paragraphs = []
    for name, spec in declared.items():
        mine = [r for r in rows if r["column"] == name]
        counts = {
            v: sum(r["verdict"] == v for r in mine)
            for v in ("feasible", "infeasible", "no_value", "no_count")
        }
        n = over_words(spec.over)
        paragraphs.append(
            f"{name} ({n}, scale {spec.scale}, scores {spec.scores[0]} to "
            f"{spec.scores[1]}, {spec.rounding}, at least {spec.decimals} decimal(s)): "
            f"{counts['feasible']} feasible, {counts['infeasible']} infeasible, "
            f"{counts['no_value']} without a value, {counts['no_count']} without a count."
        )
    table = []
    for r in rows:
        if r["verdict"] != "infeasible":
            continue
        scale = declared[r["column"]].scale
        table.append(
            {
                "row": r["row_id"],
                "column": r["column"],
                "published": r["published"],
                "N": r["n"],
                "nearest below": _count(r["low"], r["n"], scale) if r["low"] else "-",
                "nearest above": _count(r["high"], r["n"], scale) if r["high"] else "-",
            }
        )
    caveat = (
        " A feasible value is one some count can produce at its printed decimals: possible, "
        "not shown true."
    )
    if not table:
        paragraphs.append("No published value of a declared column is infeasible." + caveat)
    else:
        paragraphs.append(
            f"{len(table)} published value(s) no whole count can produce at the declared N "
            "and rounding: each is a mistake in the number or in the declared count, whatever "
            "the instance data say. A no_antecedent cell so found has the census class "
            "infeasible; a measured one keeps its class, the verdict beside it." + caveat
        )
    return paragraphs, table


def certificate_lines(res: Path, rec: Prereg) -> list[str]:
    """The certificate's feasibility section (Markdown)."""
    out = ["", "## Feasibility", ""]
    if not rec.feasibility:
        return [*out, NOT_DECLARED]
    paragraphs, table = summary(rec, read(res))
    out += [f"- {p}" for p in paragraphs[:-1]] + ["", paragraphs[-1]]
    if table:
        scale = {name: spec.scale for name, spec in rec.feasibility.items()}
        out += [""] + [
            f"- {infeasible_line(r, scale[r['column']])}"
            for r in read(res)
            if r["verdict"] == "infeasible"
        ]
    return out
