"""The answer, first: what the report's first screen, the certificate's first section and the
terminal summary all show, in this order and with the same digits (audit/text/numbers.py):

1. the verdict per measured column: cells reproduced (and at which tier), divergent, no data,
   with the permutation null beside them;
2. the warnings, each a finding with a link to its evidence in the report;
3. the cells that do not reproduce, each with its published value, the nearest recomputed
   value and the rule (policy) that came nearest.

Both kinds (leaderboard and trials) are read from the same files: census_cells.csv (class and
best tier of every published cell), the first contestant's cells.csv (every rule's recomputed
value) and nulls.csv (the null), census_columns.csv (a leaderboard's agreement beyond chance),
agreement.json, controls.csv and vulnerabilities.json.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from audit.core.agreement import Agreement
from audit.kinds.arm_kind import Kind
from audit.kinds.record import Prereg
from audit.seal import vulns
from audit.text import labels, numbers

JUDGED = ("reproduced", "divergent", "no_data", "infeasible")  # infeasible: where declared
MISSED = ("divergent", "no_data", "infeasible")
RUN1 = Path("recompute") / "pandas" / "run1"  # the first contestant's first run: the null


@dataclass(frozen=True)
class Finding:
    title: str  # one line; the report shows every title on its first screen
    detail: str  # plain text, one or two sentences
    link: str  # where its evidence is: an anchor of the report ("#chance") or a file beside it


@dataclass(frozen=True)
class Answer:
    verdict_columns: list[str]  # header keys of the verdict table (labels.label shows them)
    verdicts: list[list[str]]  # one row per measured column, every number formatted
    findings: list[Finding]
    missed_columns: list[str]
    missed: list[list[str]]  # cells that do not reproduce, every number formatted


def _csv(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _diff(v: str) -> Decimal | None:
    try:
        return Decimal(v) if v not in ("", "nan") else None
    except InvalidOperation:
        return None


def nearest(rows: list[dict[str, str]]) -> dict[str, str] | None:
    """The rule whose recomputed value came nearest the published one (ties: the first in the
    contestant's order); a text column's only value when no difference is numeric."""
    with_value = [r for r in rows if r.get("recomputed") not in (None, "", "nan")]
    numeric = [
        (d, k, r) for k, r in enumerate(with_value) if (d := _diff(r["abs_diff"])) is not None
    ]
    if numeric:
        return min(numeric, key=lambda t: (t[0], t[1]))[2]
    return with_value[0] if with_value else None


def _tiers(rec: Prereg) -> int:
    return max([len(t.tiers) for t in rec.tolerances.values()] or [0])


def _verdicts(
    res: Path, rec: Prereg, cells: list[dict[str, str]]
) -> tuple[list[str], list[list[str]]]:
    nulls = {r["column"]: r for r in _csv(res / RUN1 / "nulls.csv")}
    n_tiers = _tiers(rec)
    header = ["column", "cells", "reproduced", *[f"tier {k}" for k in range(n_tiers + 1)]]
    feasibility = any(c["class"] == "infeasible" for c in cells)
    header += ["divergent", "no_data", *(["infeasible"] if feasibility else [])]
    header += ["null_expected", "null_p"]
    rows = []
    for column in rec.judged():
        mine = [c for c in cells if c["column"] == column and c["class"] in JUDGED]
        if not mine:
            continue
        rep = [c for c in mine if c["class"] == "reproduced"]
        tiers = [sum(c["best_tier"] == str(k) for c in rep) for k in range(n_tiers + 1)]
        null = nulls.get(column, {})
        rows.append(
            [
                column,
                numbers.count(len(mine)),
                numbers.count(len(rep)),
                *[numbers.count(t) for t in tiers],
                numbers.count(sum(c["class"] == "divergent" for c in mine)),
                numbers.count(sum(c["class"] == "no_data" for c in mine)),
                *(
                    [numbers.count(sum(c["class"] == "infeasible" for c in mine))]
                    if feasibility
                    else []
                ),
                numbers.stat(null.get("null_mean"), 3),
                numbers.perm_p(null.get("p"), null.get("draws")),
            ]
        )
    return header, rows


def _missed(res: Path, rec: Prereg, cells: list[dict[str, str]]) -> list[list[str]]:
    by_cell: dict[tuple[str, str], list[dict[str, str]]] = {}
    any_kind: dict[tuple[str, str], dict[str, str]] = {}
    for r in _csv(res / RUN1 / "cells.csv"):
        any_kind.setdefault((r["row_id"], r["column"]), r)
        if r.get("kind", "measured") == "measured":
            by_cell.setdefault((r["row_id"], r["column"]), []).append(r)
    measured = rec.judged()
    out = []
    for c in cells:
        if c["class"] not in MISSED:
            continue
        key = (c["row_id"], c["column"])
        rows = by_cell.get(key, [])
        near = nearest(rows)
        # an infeasible no_antecedent cell has no measured rows: its published value as
        # written, at its own places (no tolerance: nothing was recomputed)
        published = (rows[0] if rows else any_kind.get(key, {})).get("published", "")
        tolerance = (
            rec.cell_tolerance(c["row_id"], c["column"]) if c["column"] in measured else None
        )
        places = numbers.places_for(tolerance, None, published)
        out.append(
            [
                c["row_id"],
                c["column"],
                labels.label(c["class"]),
                numbers.at_places(published, places),
                numbers.at_places(near["recomputed"], places) if near else numbers.NO_VALUE,
                labels.rule(near["policy"]) if near and near["policy"] != "-" else numbers.NO_VALUE,
                numbers.at_places(near["abs_diff"], places)
                if near and near["abs_diff"]
                else numbers.NO_VALUE,
            ]
        )
    return out


def _mean_reaches(res: Path, null: dict[str, str], observed: int) -> bool:
    """Whether the null's mean count of ``null``'s column is at least ``observed``, exactly:
    the sum of the draws' counts >= observed x draws, in integers, from null_hist.csv (count
    and draws per line); where no histogram is written, nulls.csv's mean as written."""
    hist = [r for r in _csv(res / RUN1 / "null_hist.csv") if r["column"] == null["column"]]
    if hist:
        total = sum(int(r["count"]) * int(r["draws"]) for r in hist)
        return total >= observed * sum(int(r["draws"]) for r in hist)
    mean = _diff(null.get("null_mean", ""))
    return mean is not None and mean >= observed


def no_better_than_chance(res: Path) -> list[dict[str, str]]:
    """The nulls.csv rows of the columns whose reproduction shows nothing: at least one cell
    reproduced (observed >= 1) and the null's mean count at least that many (the sum of the
    draws' counts >= observed x draws, in integers). Dealing the recomputed values to random
    rows then reproduces, on average, as many cells as the true rows do: the recomputation
    does not tell the rows apart (every entry ran the same tasks, say), so agreement there
    is no evidence that each published value is its row's. A statement about the mean, not a
    test: no threshold on p is set, and a column whose mean is below its observed count is
    left to the p beside it in the verdict table."""
    out = []
    for null in _csv(res / RUN1 / "nulls.csv"):
        if not null.get("observed", "").isdigit() or int(null["observed"]) < 1:
            continue
        if _mean_reaches(res, null, int(null["observed"])):
            out.append(null)
    return out


def _chance(res: Path, cells: list[dict[str, str]]) -> list[Finding]:
    out = []
    for null in no_better_than_chance(res):
        column = null["column"]
        mine = [c for c in cells if c["column"] == column and c["class"] in JUDGED]
        rep = sum(c["class"] == "reproduced" for c in mine)
        out.append(
            Finding(
                f"{column}: {numbers.of(rep, len(mine))} reproduced, but chance alone "
                f"reproduces {numbers.stat(null.get('null_mean'), 3)} (permutation null, "
                f"p {numbers.perm_p(null.get('p'), null.get('draws'))}): "
                "this agreement shows nothing",
                "Dealt to the wrong rows at random (the permutation null), the recomputed "
                "values reproduce on average at least as many of this column's cells as in "
                "their own rows: the recomputation does not tell the rows apart, so these "
                "reproduced cells are no evidence that each published value is its own row's. "
                "(Said of every column with a reproduced cell whose null mean is at least its "
                "reproduced count, summed exactly over the draws; no threshold on p.)",
                "#null-histograms",
            )
        )
    return out


def _findings(res: Path, cells: list[dict[str, str]], kind: Kind) -> list[Finding]:
    out = []
    columns = _csv(res / "census_columns.csv")
    flagged = [c["column"] for c in columns if c.get("constructed") in ("yes", "true")]
    if flagged:
        out.append(
            Finding(
                f"Agreement too exact to be evidence in {len(flagged)} column(s): "
                + ", ".join(flagged),
                "The recomputed values agree with the published ones more exactly than the "
                "published precision explains: the instance data may have been derived from the "
                "published values, so these columns' reproduced cells are not certified.",
                "#chance",
            )
        )
    out += _chance(res, cells)
    n_infeasible = sum(c["class"] == "infeasible" for c in cells)
    if n_infeasible:
        out.append(
            Finding(
                f"{n_infeasible} published value(s) cannot be true at their declared count",
                "No whole number of successes (or sum and sum of squares) over the declared N "
                "gives the value as printed: a typo, another N, or a number not computed as "
                "stated.",
                "#feasibility",
            )
        )
    if not (res / "agreement.json").is_file():
        out.append(
            Finding(
                "No record of the two implementations' agreement",
                "agreement.json is missing: nothing shows that the two contestants agreed.",
                "../agreement.md",
            )
        )
    elif (agreement := Agreement.read(res / "agreement.json")).disagreements:
        out.append(
            Finding(
                f"The two implementations disagree on {agreement.disagreements} cell(s)",
                "Two programs written from one contract gave different values: at least one is "
                "wrong there, and the census counts those cells as the first contestant's.",
                "../agreement.md",
            )
        )
    failed = [r for r in _csv(res / "controls.csv") if r["verdict"] not in ("pass", "skipped")]
    if failed:
        out.append(
            Finding(
                f"{len(failed)} control(s) not measured as predicted: "
                + ", ".join(r["control"] for r in failed),
                "An injected perturbation did not change the census as stamped beforehand: the "
                "pipeline does not measure what it claims there.",
                "#controls",
            )
        )
    env = vulns.line_of(res).removeprefix(vulns.VULNS_PREFIX).rstrip(".")
    if "not audited" in env or "known advisor" in env.replace("no known advisory", ""):
        out.append(
            Finding(
                "Environment not fully audited for known vulnerabilities"
                if "not audited" in env
                else "Known advisories in the locked environments",
                env + ".",
                "#environment",
            )
        )
    n_div = sum(c["class"] == "divergent" for c in cells)
    if n_div:
        rule = kind.rule[0]
        out.append(
            Finding(
                f"{n_div} published cell(s) diverge under every declared {rule}",
                f"Each is listed below with the nearest recomputed value and the {rule} that "
                "came nearest.",
                "#missed",
            )
        )
    return out


def build(res: Path, rec: Prereg, kind: Kind) -> Answer:
    """The answer of the arm in ``res``, its locked prereg's record ``rec``."""
    cells = _csv(res / "census_cells.csv")
    header, verdicts = _verdicts(res, rec, cells)
    return Answer(
        header,
        verdicts,
        _findings(res, cells, kind),
        ["row_id", "column", "class", "published", "nearest", "policy", "abs_diff"],
        _missed(res, rec, cells),
    )


def _text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Columns padded to their widest cell: numbers to the right, words to the left."""
    heads = [labels.header(h) for h in header]
    widths = [max(len(x) for x in col) for col in zip(heads, *rows, strict=True)]
    numeric = [
        all(numbers.is_number(r[k]) or r[k] == numbers.NO_VALUE for r in rows)
        and any(numbers.is_number(r[k]) for r in rows)
        for k in range(len(header))
    ]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    return [line(heads), *[line(r) for r in rows]]


def markdown(a: Answer) -> list[str]:
    """The answer as Markdown lines (the certificate's first section)."""

    def table(header: list[str], rows: list[list[str]]) -> list[str]:
        out = ["| " + " | ".join(labels.header(h) for h in header) + " |"]
        out.append("|" + "---|" * len(header))
        out += ["| " + " | ".join(v.replace("|", "\\|") for v in r) + " |" for r in rows]
        return out

    out = ["## Verdict per measured column", ""]
    out += table(a.verdict_columns, a.verdicts) if a.verdicts else ["(no measured column)"]
    out += ["", "## Findings", ""]
    out += [f"- **{f.title}.** {f.detail}" for f in a.findings] or ["- No warning."]
    if a.missed:
        out += ["", "## Cells that do not reproduce", ""]
        out += table(a.missed_columns, a.missed)
    return out


def terminal(a: Answer, limit: int = 8, title: str = "") -> list[str]:
    """The answer as terminal lines: findings first, then the verdict table, then at most
    ``limit`` of the cells that do not reproduce (the report lists every one)."""
    out = [f"{title}: findings" if title else "Findings:"]
    out += [f"  ! {f.title}" for f in a.findings] or ["  no warning"]
    out += _text_table(a.verdict_columns, a.verdicts) if a.verdicts else ["(no measured column)"]
    if a.missed:
        shown = a.missed[:limit]
        out += [
            f"Cells that do not reproduce ({len(a.missed)}"
            + (f", first {limit}; every one in the report" if len(a.missed) > limit else "")
            + "):",
        ]
        out += ["  " + ln for ln in _text_table(a.missed_columns, shown)]
    return out
