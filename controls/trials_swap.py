"""A swap control of a trials arm (docs/controls.md, trial-level arms): choose two
entries, exchange their trials (a trial table: the ``run`` of each) or their registry
rows (a registry: the entry columns of each), and predict the effect from the
unperturbed table, before the perturbed one exists.

The prediction is, for each of the two entries and every policy, ``tasks``,
``reward_macro`` and ``pass_macro`` before and after, computed by the controls' own
exact reading (controls/trials_exact.py, controls/registry_exact.py) on the
unperturbed rows and on the rows after the one edit the perturbation also applies
(``apply``): each entry then measures what the other measured. With ``ranks``
declared (trials contract, section 17), the rank census after the swap too: the
published order, the column's tasks and the draws stay, so every figure of the
unperturbed run's ranks.csv and rank_pairs.csv is relabelled
(controls/ranks_predict.py, the same reading as a leaderboard arm's swap).
"""

from __future__ import annotations

from pathlib import Path

from audit.trials.record import Policy, Prereg
from controls import registry_exact, select, trials_exact
from controls.errors import ControlError
from controls.trials_predict import table

RANK_FILES = ("ranks.csv", "rank_pairs.csv")  # a run's rank census (trials contract 17)


def entries(rec: Prereg, rows: list[dict]) -> list[str]:
    """The entries a swap may exchange: a registry's entries, a trial table's runs."""
    if not rec.trials_source:
        return registry_exact.entries(rows, rec.source)
    return trials_exact.runs(rows)


def choose(rec: Prereg, name: str, rows: list[dict]) -> list[str]:
    """The two entries, in code point order: seeded (d = 0, as a row), or named."""
    known = entries(rec, rows)
    spec = rec.controls[name]
    if spec.seeded:
        if len(known) < 2:
            raise ControlError(
                f"control {name}: a swap needs two entries, the table has {len(known)}"
            )
        return sorted(select.choose(rec.seed, name, select.ROWS, known, 2))
    pair = sorted(spec.names)  # the two entries (a registry's) or runs it names
    missing = [e for e in pair if e not in known]
    if missing:
        raise ControlError(f"control {name}: {missing} not in the table")
    return pair


def apply(rec: Prereg, rows: list[dict], sel: dict) -> list[dict]:
    """The rows with the two entries exchanged (new dicts, every other column kept with its
    trial or row; the input is left as it was)."""
    a, b = sel["row_ids"]
    rows = [dict(r) for r in rows]
    if rec.trials_source:
        swap = {a: b, b: a}
        for r in rows:
            r["run"] = swap.get(r["run"], r["run"])
        return rows
    src = rec.source
    cols = src.entry
    # each entry's column values, read from one of its rows (an entry id joins them by
    # "|", which a value may itself hold: never split it)
    values = {}
    for r in rows:
        values.setdefault(registry_exact.entry_id(src, r), [r[c] for c in cols])
    swapped = {a: values[b], b: values[a]}
    for r in rows:
        new = swapped.get(registry_exact.entry_id(src, r))
        if new is not None:
            r.update(zip(cols, new, strict=True))
    return rows


def _entry(rec: Prereg, rows: list[dict], name: str, pol: Policy) -> trials_exact.Entry:
    if not rec.trials_source:
        return registry_exact.entry(rows, rec.source, name, pol, rec.scale)
    return trials_exact.entry(rows, name, pol, rec.scale)


def predict(rec: Prereg, rows: list[dict], name: str, ranks: str | None) -> tuple[str, dict]:
    """The prediction table (CSV text: both entries, every policy) and the selection; with
    ``ranks`` (the unperturbed run's folder) and ranks declared, the selection holds the
    rank census predicted after the swap (``ranks``), stamped with it."""
    pair = choose(rec, name, rows)
    sel: dict = {"control": name, "kind": "swap", "size": None, "row_ids": pair}
    after = apply(rec, rows, sel)
    parts = []
    for who in pair:
        out = []
        for pname, pol in sorted(rec.computed_policies().items()):
            try:
                out.append((pname, _entry(rec, rows, who, pol), _entry(rec, after, who, pol)))
            except trials_exact.Unpredictable as err:
                raise ControlError(f"control {name}: policy {pname}: {err}") from err
        parts.append(table(who, out))
    text = parts[0] + "".join(p.split("\n", 1)[1] for p in parts[1:])  # one header
    if rec.ranks and ranks is not None:
        from controls.ranks_predict import predict as predict_ranks

        texts = [(Path(ranks) / f).read_text(encoding="utf-8") for f in RANK_FILES]
        sel["ranks"] = predict_ranks(pair, *texts)
    return text, sel
