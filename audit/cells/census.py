"""Summarise the agreed per-cell census: totals per class and a per-column table."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import polars as pl

from audit.cells import prereg as prereg_mod
from audit.cells.record import Prereg
from audit.cells.summary import (
    NO_INSTANCE_ROWS,
    CensusSummary,
    constructed_words,
    infeasible_words,
)
from audit.core import disclosure
from audit.core.agree import read_csv
from audit.core.agreement import Agreement
from audit.errors import FAILED, AuditError
from audit.files import write_atomic
from audit.seal.lock_record import read_lock
from audit.text import numbers

CLASSES = ("structural", "no_antecedent", "reproduced", "divergent", "no_data")
INFEASIBLE = "infeasible"  # docs/contract.md, Feasibility: counted apart, when declared


def classes_of(doc: Prereg) -> tuple[str, ...]:
    """The census classes of an arm: infeasible too when its prereg declares feasibility
    (an arm that declares none keeps the five, and its files their bytes)."""
    return (*CLASSES, INFEASIBLE) if doc.feasibility else CLASSES


P_NOT_COMPUTABLE = "n/c"
P_NOT_COMPUTABLE_TEXT = (
    "p n/c: not computable. No row's recomputed values reproduce any row's published value "
    "in that column, so no dealing can reproduce a cell and there is no chance level to "
    "set the observed count against."
)


def _check_agreement(path: str) -> None:
    report = Agreement.read(path)
    if report.disagreements:
        raise AuditError(
            "implementations_disagree",
            path,
            f"{report.disagreements} disagreement(s) between the implementations; "
            "no census is drawn from contested cells (see agreement.md)",
            FAILED,
        )


CHANCE_FIELDS = {  # chance.csv field -> census_columns.csv column
    "candidates": "chance_cells",
    "certain": "chance_certain",
    "exact_certain": "chance_exact_certain",
    "tested": "chance_tested",
    "exact_beyond": "chance_exact",
    "expected": "chance_expected",
    "p_cell_max": "chance_p_cell_max",
    "p_value": "chance_p",
    "constructed": "constructed",
}


def column_table(
    census: pl.DataFrame, nulls: pl.DataFrame, doc: Prereg, chance: pl.DataFrame | None = None
) -> pl.DataFrame:
    """One line per leaderboard column, in prereg order."""
    policies = sorted(doc.policies)
    max_tiers = max((len(t.tiers) for t in doc.tolerances.values()), default=0)
    diff = pl.col("min_abs_diff").cast(pl.Float64, strict=False)
    aggs = [
        pl.len().alias("cells"),
        *[(pl.col("class") == c).sum().alias(c) for c in classes_of(doc)[2:]],
        *[(pl.col("best_tier") == str(k)).sum().alias(f"tier_{k}") for k in range(max_tiers + 1)],
        *[
            pl.col("policies").str.split(";").list.contains(p).sum().alias(f"reproduced_{p}")
            for p in policies
        ],
        diff.filter(pl.col("class") == "divergent").min().alias("min_divergent_abs_diff"),
    ]
    table = census.group_by("column").agg(aggs)
    order = pl.DataFrame(
        {
            "column": doc.leaderboard_columns(),
            "kind": [
                *["structural"] * len(doc.structural),
                *["no_antecedent"] * len(doc.no_antecedent),
                *["measured"] * len(doc.measured),
            ],
            "order": range(len(doc.leaderboard_columns())),
        },
        schema_overrides={"order": pl.Int64},
    )
    nulls = nulls.select(
        "column",
        pl.col("observed").cast(pl.Int64).alias("null_observed"),
        pl.col("null_mean").cast(pl.Float64),
        pl.col("null_sd").cast(pl.Float64),
        pl.col("null_max").cast(pl.Int64),
        # empty when the null is not computable (docs/contract.md, nulls.csv)
        pl.when(pl.col("p") != "").then(pl.col("p")).cast(pl.Float64).alias("null_p"),
    )
    # a column no cell reaches (a leaderboard without rows) counts 0 of everything
    counts = [name for name in table.columns if name not in ("column", "min_divergent_abs_diff")]
    joined = (
        order.join(table, on="column", how="left")
        .with_columns(pl.col(counts).fill_null(0))
        .join(nulls, on="column", how="left")
    )
    if chance is not None:
        chance = chance.select("column", *[pl.col(k).alias(v) for k, v in CHANCE_FIELDS.items()])
        joined = joined.join(chance, on="column", how="left")
    return joined.sort("order").drop("order")


def row_table(
    census: pl.DataFrame, disclosed: disclosure.Disclosure, classes: tuple[str, ...] = CLASSES
) -> pl.DataFrame:
    """One line per leaderboard row (census order): cells per class, and ``disclosed``,
    the relation the prereg's disclosure declares to that row (empty when none)."""
    rel = disclosure.relations(disclosed)
    table = census.group_by("row_id", maintain_order=True).agg(
        pl.len().alias("cells"), *[(pl.col("class") == c).sum().alias(c) for c in classes]
    )
    return table.with_columns(
        pl.col("row_id")
        .replace_strict(rel, default=None, return_dtype=pl.String)
        .alias("disclosed")
    )


def rows_csv(
    census: pl.DataFrame, disclosed: disclosure.Disclosure, classes: tuple[str, ...] = CLASSES
) -> str:
    """census_rows.csv (both kinds of arm): row_table as CSV."""
    return _csv(row_table(census, disclosed, classes))


def check_complete(
    census: pl.DataFrame, rows: int, cols: int, path: str, classes: tuple[str, ...] = CLASSES
) -> dict[str, int]:
    """Totals per class; census_incomplete unless every cell has exactly one known class."""
    totals = {c: int((census["class"] == c).sum()) for c in classes}
    unknown = census.filter(~pl.col("class").is_in(list(classes))).height
    if sum(totals.values()) != rows * cols or unknown or census.height != rows * cols:
        raise AuditError(
            "census_incomplete",
            path,
            f"{census.height} cells classified ({unknown} with an unknown class), "
            f"the leaderboard has {rows} x {cols} = {rows * cols}",
            FAILED,
        )
    return totals


def summarise(
    agreement: str, contestant_dir: str, prereg_path: str, lock_path: str, out_dir: str
) -> CensusSummary:
    _check_agreement(agreement)
    doc = prereg_mod.load_record(prereg_path)
    lock = read_lock(lock_path)
    census = read_csv(Path(contestant_dir) / "census.csv")
    nulls = read_csv(Path(contestant_dir) / "nulls.csv")
    chance = read_csv(Path(contestant_dir) / "chance.csv")
    rows, cols = lock.bundle["leaderboard"].rows, lock.bundle["leaderboard"].columns
    classes = classes_of(doc)
    totals = check_complete(census, rows, cols, str(Path(contestant_dir) / "census.csv"), classes)
    table = column_table(census, nulls, doc, chance)
    summary = CensusSummary(
        arm_prereg=doc.name,
        prereg_blake3=lock.prereg_blake3,
        rows=rows,
        columns=cols,
        cells=rows * cols,
        classes=totals,
        with_antecedent=totals["reproduced"] + totals["divergent"] + totals["no_data"],
        instance_rows=lock.bundle["instances"].rows,
        chance=asdict(doc.chance),
        constructed=table.filter(pl.col("constructed") == "yes")["column"].to_list(),
    )
    out = Path(out_dir)
    write_atomic(out / "census.json", summary.to_json())
    write_atomic(out / "census_columns.csv", _csv(table))
    write_atomic(out / "census_cells.csv", (Path(contestant_dir) / "census.csv").read_bytes())
    write_atomic(out / "census_rows.csv", rows_csv(census, doc.disclosure, classes))
    write_atomic(out / "census.txt", render(summary, table, doc))
    return summary


def _csv(table: pl.DataFrame) -> str:
    floats = [c for c, t in table.schema.items() if t == pl.Float64]
    return table.with_columns(
        [pl.col(c).map_elements(lambda v: f"{v:.6f}", return_dtype=pl.String) for c in floats]
    ).write_csv(line_terminator="\n", null_value="")


def render(summary: CensusSummary, table: pl.DataFrame, doc: Prereg) -> str:
    c = summary.classes
    lines = [
        f"secondseat census: prereg {summary.arm_prereg} (blake3 {summary.prereg_blake3[:16]}...)",
        f"{summary.cells:,} cells = {summary.rows} rows x {summary.columns} columns",
        *[f"  {name:<14}{c[name]:>7,}" for name in c],
        (
            f"{summary.with_antecedent} cells with an antecedent: {c['reproduced']} reproduced, "
            f"{c['divergent']} divergent, {c['no_data']} no data"
        ),
        *([infeasible_words(c[INFEASIBLE])] if INFEASIBLE in c else []),
        *([NO_INSTANCE_ROWS] if summary.instance_rows == 0 else []),
        *disclosure.text(doc.disclosure),
        "",
    ]
    measured = table.filter(pl.col("kind") == "measured")
    tiers = [col for col in table.columns if col.startswith("tier_")]
    pols = [col for col in table.columns if col.startswith("reproduced_")]
    head = (
        f"{'column':<30}{'repr':>5}{'div':>5}{'nodata':>7}"
        + "".join(f"{t.replace('tier_', 't'):>4}" for t in tiers)
        + "".join(f"{p.replace('reproduced_', ''):>4}" for p in pols)
        + f"{'min|d| div':>12}{'null mean':>10}{'p':>10}"
    )
    lines.append(head)
    for r in measured.iter_rows(named=True):
        md = (
            ""
            if r["min_divergent_abs_diff"] is None
            else numbers.stat(r["min_divergent_abs_diff"], 4)
        )
        nm = "" if r["null_mean"] is None else numbers.stat(r["null_mean"], 3)
        p = P_NOT_COMPUTABLE if r["null_p"] is None else numbers.perm_p(r["null_p"], doc.null_draws)
        lines.append(
            f"{r['column']:<30}{r['reproduced']:>5}{r['divergent']:>5}{r['no_data']:>7}"
            + "".join(f"{r[t]:>4}" for t in tiers)
            + "".join(f"{r[p_]:>4}" for p_ in pols)
            + f"{md:>12}{nm:>10}{p:>10}"
        )
    if measured.filter(pl.col("null_p").is_null()).height:
        lines += ["", P_NOT_COMPUTABLE_TEXT]
    lines += ["", *chance_lines(summary, measured)]
    return "\n".join(lines) + "\n"


def chance_lines(summary: CensusSummary, measured: pl.DataFrame) -> list[str]:
    """Agreement beyond chance, one line per numeric measured column, then the flags in words."""
    eps = float(summary.chance["epsilon"])
    out = [
        f"Agreement beyond chance (exact: within {eps:g} relative; flagged when the exact "
        f"p < {summary.chance['threshold']}):",
        f"{'column':<30}{'cells':>6}{'certain':>8}{'tested':>7}{'exact':>6}"
        f"{'expected':>13}{'p':>13}  constructed",
    ]
    for r in measured.iter_rows(named=True):
        if r["chance_cells"] in (None, "0"):
            continue
        out.append(
            f"{r['column']:<30}{r['chance_cells']:>6}{r['chance_certain']:>8}"
            f"{r['chance_tested']:>7}{r['chance_exact']:>6}"
            f"{numbers.stat(r['chance_expected'], 3):>13}"
            f"{numbers.chance_p(r['chance_p'], summary.chance['threshold']):>13}  {r['constructed']}"
        )
    flagged = [r for r in measured.iter_rows(named=True) if r["constructed"] == "yes"]
    out += [
        f"CONSTRUCTED: {constructed_words(r, eps, summary.chance['threshold'])}." for r in flagged
    ]
    if not flagged:
        out.append("No column agrees more exactly than its published precision explains.")
    return out
