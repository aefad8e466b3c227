"""A trial control measured by both contestants: entries.csv against the prediction, and,
for a swap on an arm declaring ranks, ranks.csv and rank_pairs.csv against the rank census
stamped with it (controls/trials_swap.py)."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import blake3

from audit.files import write_atomic
from controls import sources

TOL = Decimal("0.000001")
RANK_FILES = ("ranks.csv", "rank_pairs.csv")  # written when the prereg declares ranks


def _rows(path: Path, keys: tuple[str, ...]) -> dict[tuple[str, ...], dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return {tuple(r[k] for k in keys): r for r in csv.DictReader(f)}


def _matches(measured: str, predicted: str) -> bool:
    if measured == "" or predicted == "":
        return measured == predicted
    return abs(Decimal(measured) - Decimal(predicted)) <= TOL


def _hash(p: Path) -> str:
    return blake3.blake3(p.read_bytes()).hexdigest()


def measure(pred: list[dict[str, str]], runs: list[str], before: Path, after: Path) -> dict:
    """One contestant: each predicted value measured; any change outside the control's
    runs (entries) listed."""
    key = ("entry", "policy")
    b, a = _rows(before / "entries.csv", key), _rows(after / "entries.csv", key)
    measured = {}
    for p in pred:
        k = (p["entry"], p["policy"])
        before_v, after_v = b.get(k, {}).get(p["measure"], ""), a.get(k, {}).get(p["measure"], "")
        ok = _matches(before_v, p["before"]) and _matches(after_v, p["after"])
        measured[(*k, p["measure"])] = {"after": after_v, "ok": ok}
    unpredicted = [
        f"entries.csv {'|'.join(k)}"
        for k in sorted(set(b) | set(a))
        if k[0] not in runs and b.get(k) != a.get(k)
    ]
    tkey = ("entry", "policy", "task")
    tb, ta = _rows(before / "tasks.csv", tkey), _rows(after / "tasks.csv", tkey)
    unpredicted += [
        f"tasks.csv {'|'.join(k)}"
        for k in sorted(set(tb) | set(ta))
        if k[0] not in runs and tb.get(k) != ta.get(k)
    ]
    same = _hash(before / "entries.csv") == _hash(after / "entries.csv")
    return {"measured": measured, "unpredicted": unpredicted, "identical": same}


def check(
    selection: dict,
    prediction: str,
    before: dict[str, str],
    after: dict[str, str],
    out_csv: str,
    out_json: str,
) -> dict:
    impls = sorted(before)
    with Path(prediction).open(newline="", encoding="utf-8") as f:
        pred = list(csv.DictReader(f))
    runs, name = sources.targets(selection), selection["control"]
    m = {i: measure(pred, runs, Path(before[i]), Path(after[i])) for i in impls}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "control",
            "entry",
            "policy",
            "measure",
            "predicted_before",
            "predicted_after",
            "predicted_change",
            *[f"{i}_after" for i in impls],
            "verdict",
        ]
    )
    ok_count = 0
    for p in pred:
        k = (p["entry"], p["policy"], p["measure"])
        got = [m[i]["measured"][k] for i in impls]
        ok = all(g["ok"] for g in got)
        ok_count += ok
        w.writerow(
            [
                name,
                *k,
                p["before"],
                p["after"],
                p["change"],
                *[g["after"] for g in got],
                "ok" if ok else "mismatch",
            ]
        )
    for i in impls:
        for what in m[i]["unpredicted"]:
            w.writerow(
                [name, what, "", "", "", "", "", *[""] * len(impls), f"unpredicted change ({i})"]
            )
    same = len({_hash(Path(after[i]) / "entries.csv") for i in impls}) == 1
    reasons = []
    if ok_count != len(pred):
        reasons.append(f"{len(pred) - ok_count} predicted value(s) not measured as predicted")
    reasons += [
        f"{i}: {len(m[i]['unpredicted'])} unpredicted change(s)"
        for i in impls
        if m[i]["unpredicted"]
    ]
    rank = selection.get("ranks")
    if rank is not None:  # a swap on an arm declaring ranks (trials contract 17)
        from controls.ranks_predict import predicted_part

        for i in impls:
            for f in RANK_FILES:
                path = Path(after[i]) / f
                if not path.is_file():
                    reasons.append(f"{i}: no {f} after the swap")
                elif predicted_part(path.read_text(encoding="utf-8"), rank["columns"]) != rank[f]:
                    reasons.append(f"{i}: {f} not as predicted after the swap")
    if not same:
        reasons.append("the contestants' perturbed entries.csv differ")
    verdict = {
        "control": name,
        "kind": selection["kind"],
        "selection": selection,
        "cells_predicted": len(pred),
        "cells_ok": ok_count,
        "unpredicted": {i: len(m[i]["unpredicted"]) for i in impls},
        "class_changes": {i: [] for i in impls},
        "identical_to_unperturbed": {i: m[i]["identical"] for i in impls},
        "contestants_identical": same,
        **(
            {"ranks_predicted": rank["columns"], "ranks_not_predicted": rank["not_predicted"]}
            if rank is not None
            else {}
        ),
        "verdict": "pass" if not reasons else "fail",
        "reasons": reasons,
    }
    write_atomic(out_csv, buf.getvalue())
    write_atomic(out_json, json.dumps(verdict, indent=2, sort_keys=True) + "\n")
    return verdict
