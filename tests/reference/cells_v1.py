"""A third reading of the recompute contract (docs/contract.md, cells v1), for tests only.

Written from the contract's text, apart from both contestants and from the referee:
it imports none of impl_pandas, impl_pyarrow, audit or controls. The bundle is read
with polars (a third parquet reader: the contestants use fastparquet and pyarrow),
and every number is worked in exact rationals (fractions.Fraction) and decimals,
rounded to a double only where the contract rounds. It covers what a census needs
(Recipes, Tiers, cells.csv's per-policy fields, census.csv), nothing of the null,
chance or refusals: its input is a bundle the contestants accept.

    python -m tests.reference.cells_v1 PREREG BUNDLE_DIR

prints the census, one line per cell, as census.csv would hold it.
"""

from __future__ import annotations

import csv
import math
import sys
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import polars as pl
import yaml

LARGEST = Fraction(sys.float_info.max)


@dataclass(frozen=True)
class PolicyCell:
    """One line of cells.csv for a measured column: the fields the contract defines."""

    recomputed: str
    abs_diff: str
    tier: str


def six(x: Fraction) -> str:
    """An exact value written with six decimals, half to even; -0 written 0."""
    q = round(x * 1_000_000)  # Fraction.__round__: half to even, exactly
    sign = "-" if q < 0 else ""
    q = abs(q)
    return f"{sign}{q // 1_000_000}.{q % 1_000_000:06d}"


def to_double(x: Fraction) -> float:
    """x rounded once to the nearest double, ties to even (int / int true division
    in Python is correctly rounded)."""
    return x.numerator / x.denominator


def round_to(x: Fraction, d: int) -> Fraction:
    """x rounded half to even to d decimals, exactly."""
    scaled = x * Fraction(10) ** d
    return Fraction(round(scaled)) / Fraction(10) ** d


def repr_decimal(x: float) -> Fraction:
    """The decimal a published number prints as (repr), as an exact rational."""
    return Fraction(Decimal(repr(x)))


def is_null(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def exact_sum(values: list[float]) -> Fraction:
    return sum((Fraction(v) for v in values), Fraction(0))


def mean_of(values: list[float], scale: int = 1) -> float | None:
    """The contract's mean: scale * S / n, S the exact sum rounded once to a double, the
    quotient exact and rounded once; past the largest double, S / n exactly, rounded once
    (scale 1); a scaled value beyond the largest double is no data."""
    if not values:
        return None
    s = exact_sum(values)
    try:
        s = Fraction(to_double(s))  # S: the exact sum rounded once ...
    except OverflowError:
        pass  # ... unless it rounds beyond the largest double: then S exactly
    try:
        return to_double(scale * s / len(values))
    except OverflowError:  # a scaled value beyond the largest double
        return None


def sum_of(values: list[float]) -> float | None:
    """The recipe sum: S, the exact sum rounded once; beyond the largest double, no data."""
    if not values:
        return None
    try:
        return to_double(exact_sum(values))
    except OverflowError:
        return None


def printed_decimals(p: Fraction) -> int:
    """d_P: the least d with P * 10^d whole."""
    d = 0
    while (p * 10**d).denominator != 1:
        d += 1
    return d


def tier_of(published, recomputed: float | None, tolerance: dict) -> PolicyCell:
    """Tiers, for numbers (docs/contract.md, "Tiers"): each cell judged at the decimals
    its published value prints, never fewer than a fixed exact_decimals."""
    if recomputed is None:
        return PolicyCell("", "", "no_data")
    r = Fraction(recomputed)
    rec = six(r)
    if published is None or isinstance(published, bool) or not math.isfinite(published):
        return PolicyCell(rec, "", "divergent")
    p = repr_decimal(published)
    diff = abs(p - r)
    fixed = tolerance["exact_decimals"]
    d = printed_decimals(p) if fixed == "published" else max(printed_decimals(p), fixed)
    if round_to(r, d) == p:
        return PolicyCell(rec, six(diff), "0")
    unit = Fraction(1, 10**d) if tolerance.get("tier_unit") == "last_digit" else Fraction(1)
    for k, t in enumerate(tolerance["tiers"], start=1):
        if diff <= repr_decimal(t) * unit:
            return PolicyCell(rec, six(diff), str(k))
    return PolicyCell(rec, six(diff), "divergent")


def feasible(published, n, decl: dict) -> str:
    """docs/contract.md, Feasibility: the verdict of one cell, in whole numbers and
    fractions. Can the published value print from scale * S / N for a whole S?"""
    if published is None or isinstance(published, bool):
        return "no_value"
    if isinstance(published, float) and not math.isfinite(published):
        return "no_value"
    if n is None or n < 1:
        return "no_count"
    p = repr_decimal(published)
    d = max(printed_decimals(p), decl["decimals"])
    g = Fraction(1, 10**d)
    u = int(p / g)
    rule = decl["rounding"]
    if rule == "truncate":
        lo, hi = (u * g, (u + 1) * g) if u > 0 else ((u - 1) * g, u * g) if u < 0 else (-g, g)
        closed = (u > 0, u < 0)  # [lo, hi) above zero, (lo, hi] below, open at zero
    else:
        lo, hi = (u - Fraction(1, 2)) * g, (u + Fraction(1, 2)) * g
        if rule == "half_even":
            closed = (u % 2 == 0, u % 2 == 0)
        else:  # half_up: ties away from zero
            closed = (u > 0, u < 0)

    def inside(x: Fraction) -> bool:
        return (lo < x or (closed[0] and x == lo)) and (x < hi or (closed[1] and x == hi))

    scale, (least, most) = decl["scale"], decl["scores"]
    first, last = math.ceil(lo * n / scale), math.floor(hi * n / scale)
    candidates = {first, first + 1, last, last - 1}
    grid = [c for c in candidates if least * n <= c <= most * n]
    return "feasible" if any(inside(Fraction(scale * c, n)) for c in grid) else "infeasible"


def published_text(v) -> str:
    """Values: how the leaderboard's value is written (the census's row ids)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return six(Fraction(v))
    return str(v)


def recompute(prereg_path: Path, bundle: Path) -> tuple[dict, dict]:
    """(cells, census) of the bundle under the prereg.

    cells: {(row_id, column, policy): PolicyCell} for the measured columns;
    census: {(row_id, column): (class, best_tier, policies, min_abs_diff)} for every cell.
    """
    prereg = yaml.safe_load(prereg_path.read_text(encoding="utf-8"))
    b = prereg["bundle"]
    cols = prereg["columns"]
    measured: dict = cols["measured"]
    policies: dict = prereg["policies"]
    tolerances: dict = prereg["tolerances"]

    board = pl.read_parquet(bundle / b["leaderboard"]).to_dicts()
    wanted = {b["row_id"], b["group_by"]}
    for spec in measured.values():
        if "source" in spec:
            wanted.add(spec["source"])
        declared = spec.get("denominator")
        if isinstance(declared, dict) and "universe" in declared:
            wanted.add(declared["universe"]["column"])
    for pol in policies.values():
        pop = pol.get("population")
        if pop:
            wanted.add(pop["not_null"])
    instances = pl.read_parquet(bundle / b["instances"], columns=sorted(wanted)).to_dicts()

    by_row: dict = {}
    for rec in instances:
        by_row.setdefault(rec[b["row_id"]], []).append(rec)

    def rows_of(row_id, spec) -> list[dict]:
        rows = by_row.get(row_id, [])
        if "group" in spec:
            rows = [r for r in rows if r[b["group_by"]] == spec["group"]]
        return rows

    def value(row_id, column: str, policy: str) -> float | str | None:
        spec = measured[column]
        recipe = spec["recipe"]
        if recipe == "single_value":
            distinct = {r[spec["source"]] for r in rows_of(row_id, spec)}
            distinct.discard(None)
            if len(distinct) > 1:
                raise ValueError(f"ambiguous_value: {row_id} {column}")
            return next(iter(distinct)) if distinct else None
        if recipe == "mean_of_columns":
            parts = [value(row_id, c, policy) for c in spec["columns"]]
            return mean_of([p for p in parts if p is not None])
        pol = policies[policy]
        rows = rows_of(row_id, spec)
        if not rows:  # nothing shipped for the row: no data, whatever the denominator
            return None
        vals = [r[spec["source"]] for r in rows]
        declared = spec.get("denominator")
        if isinstance(declared, dict):
            universe = declared.get("universe")
            big_n = len(set(universe["ids"])) if universe else declared["fixed"]
            if len(rows) > big_n:
                raise ValueError(f"bad_denominator: {row_id} {column}")
            if universe:  # the row is held to the named instances
                ids = [r[universe["column"]] for r in rows]
                if None in ids or len(set(ids)) < len(ids) or set(ids) - set(universe["ids"]):
                    raise ValueError(f"bad_denominator: {row_id} {column}")
                if universe["missing"] == "refuse" and len(ids) < big_n:
                    raise ValueError(f"bad_denominator: {row_id} {column}")
            if not pol.get("population"):
                vals += [None] * (big_n - len(rows))  # the unlisted instances: null
        if recipe == "rate":
            k = sum(1 for v in vals if v is True)
            n = len(vals) if pol["nulls"] == "failure" else sum(1 for v in vals if v is not None)
            if n == 0:
                return None
            return to_double(Fraction(spec["scale"] * k, n))
        if recipe in ("mean", "sum"):
            pop = pol.get("population")
            if pop:  # unlisted instances have no recorded outcome: outside the population
                vals = [r[spec["source"]] for r in rows if r[pop["not_null"]] is not None]
            if pol["nulls"] == "exclude":
                vals = [float(v) for v in vals if not is_null(v)]
            else:  # zero
                vals = [0.0 if is_null(v) else float(v) for v in vals]
            if recipe == "sum":
                return sum_of(vals)
            return mean_of(vals, spec.get("scale", 1))
        raise ValueError(f"unknown recipe {recipe}")

    cells: dict = {}
    census: dict = {}
    for row in board:
        row_id = row[b["row_id"]]
        rid = published_text(row_id)
        for column in row:
            if column in cols["structural"]:
                census[(rid, column)] = ("structural", "", "", "")
                continue
            if column in cols["no_antecedent"]:
                census[(rid, column)] = ("no_antecedent", "", "", "")
                decl = (prereg.get("feasibility") or {}).get(column)
                if decl is not None:
                    over = decl["over"]
                    n = row[over["column"]] if isinstance(over, dict) else over
                    if feasible(row[column], n, decl) == "infeasible":
                        census[(rid, column)] = ("infeasible", "", "", "")
                continue
            spec = measured[column]
            published = row[column]
            per: dict[str, PolicyCell] = {}
            if spec["recipe"] == "single_value":
                got = value(row_id, column, "-")
                if got is None:
                    per["-"] = PolicyCell("", "", "no_data")
                else:
                    per["-"] = PolicyCell(got, "", "0" if published == got else "divergent")
            else:
                for policy in spec["policies"]:
                    tol = tolerances[spec["tolerance"]]
                    per[policy] = tier_of(published, value(row_id, column, policy), tol)
            for policy, cell in per.items():
                cells[(rid, column, policy)] = cell
            integer = {p: int(c.tier) for p, c in per.items() if c.tier.isdigit()}
            diffs = [Fraction(c.abs_diff) for c in per.values() if c.abs_diff]
            least = six(min(diffs)) if diffs else ""
            if integer:
                census[(rid, column)] = (
                    "reproduced",
                    str(min(integer.values())),
                    ";".join(sorted(integer)),
                    least,
                )
            elif any(c.tier == "divergent" for c in per.values()):
                census[(rid, column)] = ("divergent", "", "", least)
            else:
                census[(rid, column)] = ("no_data", "", "", least)
    return cells, census


def main(argv: list[str]) -> int:
    _, census = recompute(Path(argv[0]), Path(argv[1]))
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["row_id", "column", "class", "best_tier", "policies", "min_abs_diff"])
    for (rid, column), fields in sorted(census.items()):
        out.writerow([rid, column, *fields])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
