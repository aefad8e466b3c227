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

from controls import registry_exact, select, trials_exact
from controls.errors import ControlError
from controls.trials_predict import table

RANK_FILES = ("ranks.csv", "rank_pairs.csv")  # a run's rank census (trials contract 17)


def _registry(doc: dict) -> bool:
    return doc["source"]["kind"] == "registry"


def entries(doc: dict, rows: list[dict]) -> list[str]:
    """The entries a swap may exchange: a registry's entries, a trial table's runs."""
    if _registry(doc):
        return registry_exact.entries(rows, doc["source"])
    return trials_exact.runs(rows)


def choose(doc: dict, name: str, rows: list[dict]) -> list[str]:
    """The two entries, in code point order: seeded (d = 0, as a row), or named."""
    known = entries(doc, rows)
    target = doc["controls"][name]["target"]
    if target == "seeded":
        if len(known) < 2:
            raise ControlError(
                f"control {name}: a swap needs two entries, the table has {len(known)}"
            )
        return sorted(select.choose(doc["seed"], name, select.ROWS, known, 2))
    pair = sorted(target["entries"] if "entries" in target else target["runs"])
    missing = [e for e in pair if e not in known]
    if missing:
        raise ControlError(f"control {name}: {missing} not in the table")
    return pair


def apply(doc: dict, rows: list[dict], sel: dict) -> list[dict]:
    """The rows with the two entries exchanged (new dicts, every other column kept with its
    trial or row; the input is left as it was)."""
    a, b = sel["row_ids"]
    rows = [dict(r) for r in rows]
    if not _registry(doc):
        swap = {a: b, b: a}
        for r in rows:
            r["run"] = swap.get(r["run"], r["run"])
        return rows
    src = doc["source"]
    cols = src["entry"]
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


def _entry(doc: dict, rows: list[dict], name: str, pol: dict) -> trials_exact.Entry:
    if _registry(doc):
        return registry_exact.entry(rows, doc["source"], name, pol, doc["scale"])
    return trials_exact.entry(rows, name, pol, doc["scale"])


def predict(doc: dict, rows: list[dict], name: str, ranks: str | None) -> tuple[str, dict]:
    """The prediction table (CSV text: both entries, every policy) and the selection; with
    ``ranks`` (the unperturbed run's folder) and ranks declared, the selection holds the
    rank census predicted after the swap (``ranks``), stamped with it."""
    pair = choose(doc, name, rows)
    sel: dict = {"control": name, "kind": "swap", "size": None, "row_ids": pair}
    after = apply(doc, rows, sel)
    pols = doc["policies"] if _registry(doc) else trials_exact.policies(doc)
    parts = []
    for who in pair:
        out = []
        for pname, pol in sorted(pols.items()):
            try:
                out.append((pname, _entry(doc, rows, who, pol), _entry(doc, after, who, pol)))
            except trials_exact.Unpredictable as err:
                raise ControlError(f"control {name}: policy {pname}: {err}") from err
        parts.append(table(who, out))
    text = parts[0] + "".join(p.split("\n", 1)[1] for p in parts[1:])  # one header
    if doc.get("ranks") and ranks is not None:
        from controls.ranks_predict import predict as predict_ranks

        texts = [(Path(ranks) / f).read_text(encoding="utf-8") for f in RANK_FILES]
        sel["ranks"] = predict_ranks(pair, *texts)
    return text, sel
