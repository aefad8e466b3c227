"""Predict each control's effect from the unperturbed bundle, before it is applied."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import polars as pl

from audit.cells.record import Control, Prereg
from controls import exact, keys, select
from controls.errors import ControlError
from controls.exact import Value


def _rows_dependent_on(doc: Prereg, columns: set[str]) -> list[str]:
    """Measured columns whose value depends on any of ``columns`` (themselves included)."""
    out = set(columns)
    changed = True
    while changed:
        changed = False
        for name, spec in doc.measured.items():
            if name not in out and spec.recipe == "mean_of_columns" and out & set(spec.columns):
                out.add(name)
                changed = True
    return sorted(out)


def _direct_columns(doc: Prereg, recipe: str, source: str, group: str) -> list[str]:
    """Columns reading ``source`` in ``group`` by the recipe (a mean's: means and sums)."""
    recipes = ("mean", "sum") if recipe == "mean" else (recipe,)
    return sorted(
        n
        for n, s in doc.measured.items()
        if s.recipe in recipes and s.source == source and s.group == group
    )


def _target_row(doc: Prereg, name, spec: Control, lb, inst, eligible) -> str:
    rows = exact.row_ids(lb, doc)
    if spec.seeded:
        pool = [r for r in rows if eligible(r)]
        if not pool:
            raise ControlError(f"control {name}: no leaderboard row is eligible")
        return select.choose(doc.seed, name, select.ROWS, pool, 1)[0]
    assert isinstance(spec.target, tuple)
    (row,) = spec.target
    if row not in rows:
        raise ControlError(f"control {name}: row {row!r} is not on the leaderboard")
    if not eligible(row):
        raise ControlError(f"control {name}: row {row!r} cannot take this perturbation")
    return row


def _keys(frame: pl.DataFrame, doc: Prereg) -> list[list[str | None]]:
    """The frame's instance keys' texts (controls/keys.py: the perturbation finds them by
    the same texts), in instance key order (the canonical order to choose from)."""
    cols = list(doc.bundle.instance_key)
    return keys.texts(frame.select(cols).sort(cols), cols)


@dataclass(frozen=True)
class Target:
    """What a flip, shift or nullify perturbs: k instances of one row, in the source's group."""

    row: str
    instances: list[list[str | None]]  # the chosen instance keys' texts (seeded, d = 1)
    candidates: pl.DataFrame  # the row's instances of the group that can take it
    source: str
    group: str
    k: int


def _can_take(spec: Control, recipe: str, source: str) -> tuple[pl.Expr, int]:
    """Which instances can take the control, and how many it needs: a flip turns k true
    values false; a shift moves one value there is; a nullify nulls k true values of a
    rate (so every policy moves) or k values a mean has."""
    if spec.kind == "shift":
        return pl.col(source).is_not_null(), 1
    if spec.kind == "flip" or recipe == "rate":
        return pl.col(source).fill_null(False), int(spec.size or 0)
    return pl.col(source).is_not_null(), int(spec.size or 0)


def target(doc: Prereg, name: str, spec: Control, lb, inst) -> Target:
    """A flip's, shift's or nullify's row and instances, from the unperturbed bundle (the
    row named, or seeded among those that can take it, d = 0); a ControlError when no
    row, or not the named one, can take it. The prediction and preflight both choose here."""
    cspec = doc.measured[str(spec.column)]
    source, group = str(cspec.source), str(cspec.group)
    where, k = _can_take(spec, cspec.recipe, source)
    eligible = inst.counts(group, where)  # one pass over the instances, not one per row
    row = _target_row(doc, name, spec, lb, inst, lambda r: eligible.get(r, 0) >= k)
    candidates = inst.frame(row, group).filter(where)
    chosen = select.choose(doc.seed, name, select.INSTANCES, _keys(candidates, doc), k)
    return Target(row, chosen, candidates, source, group, k)


def _flip_or_shift(doc: Prereg, name, spec: Control, lb, inst):
    t = target(doc, name, spec, lb, inst)
    row, chosen, source, group, k = t.row, t.instances, t.source, t.group, t.k
    cspec = doc.measured[str(spec.column)]
    recipe = "rate" if spec.kind == "flip" else "mean"
    direct = _direct_columns(doc, recipe, source, group)
    frame = inst.frame(row, group)
    overrides: dict[tuple[str, str], Value] = {}
    for col in direct:
        for pol in exact.policies_of(doc, col):
            before = exact.cell(inst, doc, row, col, pol)
            cspec = doc.measured[col]
            nulls = doc.policies[pol].nulls
            if spec.kind == "flip":
                n = exact.denominator(frame, source, nulls, exact.fixed_of(cspec))
                delta = Fraction(-int(cspec.scale or 0) * k, n)
            else:  # a shifted value outside the policy's population moves nothing
                kept = exact.in_population(frame, doc, pol)
                if [c for c in chosen if c in _keys(kept, doc)]:
                    restricted = doc.population_of(pol) is not None
                    fixed = None if restricted else exact.fixed_of(cspec)
                    n = exact.denominator(kept, source, nulls, fixed)
                    # a sum moves by the shift itself; a mean by scale * shift / n
                    size = Fraction(spec.size or 0)
                    delta = size if cspec.recipe == "sum" else cspec.mean_scale * size / n
                else:
                    delta = Fraction(0)
            overrides[(col, pol)] = before if delta == 0 else before + delta  # type: ignore[operator]
    cells = []
    for col in _rows_dependent_on(doc, set(direct)):
        for pol in exact.policies_of(doc, col):
            before = exact.cell(inst, doc, row, col, pol)
            after = exact.cell(inst, doc, row, col, pol, overrides)
            cells.append((row, col, pol, before, after))
    selection = {"row_id": row, "instances": chosen, "source": source, "group": group}
    return cells, selection


def _nullified(
    doc: Prereg,
    frame: pl.DataFrame,
    col: str,
    pol: str,
    chosen_sum: Fraction,
    k: int,
    in_population: bool = False,
):
    """A direct column's value once k chosen values of its source are null, under ``pol``.

    Rate, the k chosen values true: ``failure`` keeps them in the denominator
    as failures, scale * (t - k) / n (the score falls by scale * k / n);
    ``exclude`` drops them from both, scale * (t - k) / (n_non_null - k).
    Mean, the chosen values summing to s: ``zero`` keeps the denominator,
    (S - s) / n (falls by s / n); ``exclude`` drops them, (S - s) / (n_non_null - k).
    A denominator of 0 is no data."""
    spec = doc.measured[col]
    source = str(spec.source)
    nulls = doc.policies[pol].nulls
    values = frame.get_column(source)
    non_null = values.len() - values.null_count()
    fixed = None if in_population else exact.fixed_of(spec)
    if nulls in ("failure", "zero"):
        n = exact.denominator(frame, source, nulls, fixed)
    else:
        n = non_null - k
    if n == 0:
        return None
    if spec.recipe == "rate":
        true = int(values.fill_null(False).sum())
        return Fraction(int(spec.scale or 0) * (true - k), n)
    left = exact.series_sum(values.drop_nulls()) - chosen_sum
    return left if spec.recipe == "sum" else spec.mean_scale * left / n


def _nullified_in_population(doc, frame, col, pol, chosen, by_key):
    """As _nullified, for a mean policy with a population: only the chosen values
    inside the population leave the mean (those outside were never in it)."""
    kept = exact.in_population(frame, doc, pol)
    inside = [c for c in chosen if c in _keys(kept, doc)]
    chosen_sum = exact.exact_sum([by_key[tuple(c)] for c in inside])
    return _nullified(doc, kept, col, pol, chosen_sum, len(inside), in_population=True)


def _population_left(doc, frame, source, group, chosen) -> dict[tuple[str, str], Value]:
    """Mean cells of the group under a policy whose population needs ``source`` not
    null, once the chosen rows' ``source`` is null: those rows leave the mean."""
    out: dict[tuple[str, str], Value] = {}
    for col, spec in sorted(doc.measured.items()):
        if spec.recipe not in ("mean", "sum") or spec.group != group:
            continue
        for pol in exact.policies_of(doc, col):
            if doc.population_of(pol) != source:
                continue
            kept = exact.in_population(frame, doc, pol)
            gone = keys.positions(kept, list(doc.bundle.instance_key), chosen)
            left = kept.with_row_index("_i").filter(~pl.col("_i").is_in(gone)).drop("_i")
            out[(col, pol)] = exact.direct(spec, left, doc.policies[pol].nulls, True)
    return out


def _nullify(doc: Prereg, name, spec: Control, lb, inst):
    t = target(doc, name, spec, lb, inst)
    row, chosen, candidates, source, group, k = (
        t.row, t.instances, t.candidates, t.source, t.group, t.k
    )  # fmt: skip
    recipe = doc.measured[str(spec.column)].recipe
    chosen_sum = Fraction(0)
    by_key: dict[tuple[str | None, ...], float] = {}
    if recipe == "mean":
        cols = list(doc.bundle.instance_key)
        texts = keys.texts(candidates, cols)
        by_key = dict(zip(map(tuple, texts), candidates.get_column(source), strict=True))
        chosen_sum = exact.exact_sum([by_key[tuple(c)] for c in chosen])
    direct = _direct_columns(doc, recipe, source, group)
    frame = inst.frame(row, group)
    overrides: dict[tuple[str, str], Value] = {
        (col, pol): _nullified_in_population(doc, frame, col, pol, chosen, by_key)
        if recipe == "mean" and doc.population_of(pol) is not None
        else _nullified(doc, frame, col, pol, chosen_sum, k)
        for col in direct
        for pol in exact.policies_of(doc, col)
    }
    if recipe == "rate":  # a mean whose population needs this source not null loses rows
        overrides.update(_population_left(doc, frame, source, group, chosen))
    cells = []
    for col in _rows_dependent_on(doc, {*direct, *(c for c, _ in overrides)}):
        for pol in exact.policies_of(doc, col):
            before = exact.cell(inst, doc, row, col, pol)
            after = exact.cell(inst, doc, row, col, pol, overrides)
            cells.append((row, col, pol, before, after))
    selection = {"row_id": row, "instances": chosen, "source": source, "group": group}
    return cells, selection


def swap_pair(doc: Prereg, name: str, spec: Control, lb) -> list[str]:
    """A swap's two rows, in code point order: seeded (d = 0), or named (a ControlError
    when one is not on the leaderboard). The prediction and preflight both choose here."""
    rows = exact.row_ids(lb, doc)
    if spec.seeded:
        return sorted(select.choose(doc.seed, name, select.ROWS, rows, 2))
    assert isinstance(spec.target, tuple)
    pair = sorted(spec.target)
    missing = [r for r in pair if r not in rows]
    if missing:
        raise ControlError(f"control {name}: rows {missing} are not on the leaderboard")
    return pair


def _swap(doc: Prereg, name, spec: Control, lb, inst):
    pair = swap_pair(doc, name, spec, lb)
    cells = []
    for col in sorted(doc.measured):
        for pol in exact.policies_of(doc, col):
            a, b = (exact.cell(inst, doc, r, col, pol) for r in pair)
            cells.append((pair[0], col, pol, a, b))
            cells.append((pair[1], col, pol, b, a))
    return cells, {"row_ids": pair}


NO_INSTANCE_ROWS = "the instance table has no rows: nothing to perturb"
RANK_FILES = ("ranks.csv", "rank_pairs.csv")  # a run's rank census (docs/contract.md, Ranks)


def nothing_to_perturb(doc: Prereg, bundle: str) -> str | None:
    """Why no control can be applied to this bundle, or None when one can.

    An instance table with no rows has nothing to flip, shift, swap or reorder:
    every control is then skipped (neither passed nor failed), with this reason."""
    path = Path(bundle) / doc.bundle.instances
    rows = pl.scan_parquet(path).select(pl.len()).collect().item()
    return NO_INSTANCE_ROWS if rows == 0 else None


def predict(
    doc: Prereg,
    bundle: str,
    name: str,
    read: Callable[[], tuple[pl.DataFrame, exact.ByRow]] | None = None,
    ranks: str | None = None,
) -> tuple[str, dict]:
    """The prediction table (CSV text) and the selection it rests on. ``read``: the
    unperturbed bundle's tables (exact.bundle_reader), read here if not given.
    ``ranks``: the unperturbed run's folder holding ranks.csv and rank_pairs.csv; with
    it, a swap's selection holds the rank census predicted after the swap (``ranks``,
    controls/ranks_predict.py), stamped with it.

    A skipped control predicts no cell; its selection holds ``skipped``, the reason."""
    spec = doc.controls[name]
    tables = read or exact.bundle_reader(bundle, doc)
    skipped = nothing_to_perturb(doc, bundle)
    if skipped is not None:
        cells, selection = [], {"skipped": skipped}
    elif spec.kind in ("flip", "shift"):
        cells, selection = _flip_or_shift(doc, name, spec, *tables())
    elif spec.kind == "nullify":
        cells, selection = _nullify(doc, name, spec, *tables())
    elif spec.kind == "swap":
        cells, selection = _swap(doc, name, spec, *tables())
        if ranks is not None and doc.ranks is not None:  # docs/controls.md, a swap and the ranks
            from controls.ranks_predict import predict as predict_ranks

            texts = [(Path(ranks) / f).read_text(encoding="utf-8") for f in RANK_FILES]
            selection["ranks"] = predict_ranks(selection["row_ids"], *texts)
    else:  # a reorder predicts that nothing changes: the bundle's values are not needed
        cells, selection = [], {"instances": "every row, in the seeded order"}
    selection = {"control": name, "kind": spec.kind, "size": spec.size, **selection}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["row_id", "column", "policy", "before", "after", "change"])
    for row, col, pol, before, after in sorted(cells, key=lambda c: c[:3]):
        change = (
            ""
            if isinstance(after, str) or None in (before, after)
            else exact.fmt6(after - before, signed=True)
        )  # type: ignore[operator]
        w.writerow([row, col, pol, exact.fmt6(before), exact.fmt6(after), change])
    return buf.getvalue(), selection


def check_target(
    doc: Prereg,
    bundle: str,
    name: str,
    read: Callable[[], tuple[pl.DataFrame, exact.ByRow]] | None = None,
) -> None:
    """The control's targets chosen from the unperturbed bundle as predict chooses them
    (target, swap_pair): the ControlError its prediction would raise, with nothing
    written. Preflight calls it on the shipped bundle, before the lock
    (audit/preflight.py); a bundle with no instance rows skips every control, as
    predict does. ``read``: as predict's."""
    if nothing_to_perturb(doc, bundle) is not None:
        return
    spec = doc.controls[name]
    tables = read or exact.bundle_reader(bundle, doc)
    if spec.kind in ("flip", "shift", "nullify"):
        target(doc, name, spec, *tables())
    elif spec.kind == "swap":
        swap_pair(doc, name, spec, tables()[0])


def selection_json(selection: dict) -> str:
    return json.dumps(selection, indent=2, sort_keys=True) + "\n"
