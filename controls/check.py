"""Compare what each contestant measured on a perturbed bundle with the stamped prediction."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from functools import cache
from pathlib import Path

import blake3

from audit.files import write_atomic

TOL = Decimal("0.000001")
# A rerun on a perturbed bundle draws no null (--no-draws): its reproduce.csv,
# with the prereg, fixes the null completely (docs/contract.md).
FILES = ("cells.csv", "census.csv", "reproduce.csv")
# written when the prereg declares ranks: a reorder changes none of their bytes either, a
# swap moves them as predicted (controls/ranks_predict.py)
RANK_FILES = ("ranks.csv", "rank_pairs.csv")


def _rows(path: Path, keys: tuple[str, ...]) -> dict[tuple[str, ...], dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return {tuple(r[k] for k in keys): r for r in csv.DictReader(f)}


@cache
def _unperturbed(path: Path, keys: tuple[str, ...]) -> dict[tuple[str, ...], dict[str, str]]:
    """The unperturbed run's rows, read once for every control (never changed here)."""
    return _rows(path, keys)


def _num(s: str) -> Decimal | None:
    return None if s == "" else Decimal(s)


def _fmt(d: Decimal | None, signed: bool = False) -> str:
    if d is None:
        return ""
    return f"{d:+.6f}" if signed else f"{d:.6f}"


def _matches(measured: str, predicted: str, text: bool) -> bool:
    if text or measured == "" or predicted == "":
        return measured == predicted
    return abs(Decimal(measured) - Decimal(predicted)) <= TOL


def _hash(p: Path) -> str:
    return blake3.blake3(p.read_bytes()).hexdigest()


_unperturbed_hash = cache(_hash)  # the unperturbed run's files, hashed once for every control


def measure(prediction: Path, before: Path, after: Path) -> dict:
    """One contestant: every predicted cell measured, every unpredicted change listed."""
    key = ("row_id", "column", "policy")
    pred = _rows(prediction, key)
    b, a = _unperturbed(before / "cells.csv", key), _rows(after / "cells.csv", key)
    measured, unpredicted = {}, []
    for k in sorted(set(b) | set(a)):
        rb, ra = b.get(k), a.get(k)
        if k in pred:
            p = pred[k]
            text = p["policy"] == "-"  # single_value cells carry text
            after_v, before_v = (ra or {}).get("recomputed", ""), (rb or {}).get("recomputed", "")
            change = ""
            if not text and after_v and before_v:
                change = _fmt(Decimal(after_v) - Decimal(before_v), signed=True)
            ok = _matches(after_v, p["after"], text) and _matches(before_v, p["before"], text)
            measured[k] = {"after": after_v, "change": change, "ok": ok}
        elif rb != ra:
            unpredicted.append("|".join(k))
    cb = _unperturbed(before / "census.csv", ("row_id", "column"))
    ca = _rows(after / "census.csv", ("row_id", "column"))
    class_changes = [
        {"cell": "|".join(k), "before": cb[k]["class"], "after": ca.get(k, {}).get("class", "")}
        for k in sorted(cb)
        if cb[k]["class"] != ca.get(k, {}).get("class", "")
    ]
    files = [*FILES, *(f for f in RANK_FILES if (before / f).is_file())]
    identical = all(_unperturbed_hash(before / f) == _hash(after / f) for f in files)
    return {
        "measured": measured,
        "unpredicted": unpredicted,
        "class_changes": class_changes,
        "identical_to_unperturbed": identical,
    }


def _verdict(reasons: list[str], skipped: str | None) -> str:
    """pass, fail, or skipped: a control with nothing to perturb was neither passed nor failed."""
    if reasons:
        return "fail"
    return "skipped" if skipped else "pass"


def check(
    name: str,
    kind: str,
    selection: dict,
    prediction: str,
    before: dict[str, str],
    after: dict[str, str],
    out_csv: str,
    out_json: str,
) -> dict:
    impls = sorted(before)
    m = {i: measure(Path(prediction), Path(before[i]), Path(after[i])) for i in impls}
    with Path(prediction).open(newline="", encoding="utf-8") as f:
        pred_rows = list(csv.DictReader(f))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "control",
            "row_id",
            "column",
            "policy",
            "predicted_after",
            "predicted_change",
            *[f"{i}_{x}" for i in impls for x in ("after", "change")],
            "verdict",
        ]
    )
    cells_ok = 0
    for p in pred_rows:
        k = (p["row_id"], p["column"], p["policy"])
        got = [m[i]["measured"].get(k, {"after": "", "change": "", "ok": False}) for i in impls]
        ok = all(g["ok"] for g in got)
        cells_ok += ok
        w.writerow(
            [
                name,
                *k,
                p["after"],
                p["change"],
                *[x for g in got for x in (g["after"], g["change"])],
                "ok" if ok else "mismatch",
            ]
        )
    for i in impls:
        for cell in m[i]["unpredicted"]:
            w.writerow(
                [
                    name,
                    *cell.split("|"),
                    "",
                    "",
                    *[""] * (2 * len(impls)),
                    f"unpredicted change ({i})",
                ]
            )
    same = len({_hash(Path(after[i]) / "cells.csv") for i in impls}) == 1
    reasons = []
    skipped = selection.get("skipped")
    if skipped:
        # nothing was perturbed: the reruns read the unperturbed bundle again, so any
        # difference from the unperturbed run is a failure, not a skip
        reasons += [
            f"{i}: outputs differ from the unperturbed run, yet nothing was perturbed"
            for i in impls
            if not m[i]["identical_to_unperturbed"]
        ]
    elif kind == "reorder":
        reasons += [
            f"{i}: outputs differ from the unperturbed run"
            for i in impls
            if not m[i]["identical_to_unperturbed"]
        ]
    if cells_ok != len(pred_rows):
        reasons.append(f"{len(pred_rows) - cells_ok} predicted cell(s) not measured as predicted")
    reasons += [
        f"{i}: {len(m[i]['unpredicted'])} unpredicted change(s)"
        for i in impls
        if m[i]["unpredicted"]
    ]
    if kind == "swap" and not skipped:
        detected = [
            i
            for i in impls
            if any(
                c["before"] == "reproduced" and c["after"] == "divergent"
                for c in m[i]["class_changes"]
            )
        ]
        if detected != impls:
            reasons.append("swap not detected as divergence by every contestant")
    rank = selection.get("ranks")
    if rank is not None and not skipped:  # a swap on an arm declaring ranks
        from controls.ranks_predict import predicted_part

        for i in impls:
            for f in RANK_FILES:
                got = (Path(after[i]) / f).read_text(encoding="utf-8")
                if predicted_part(got, rank["columns"]) != rank[f]:
                    reasons.append(f"{i}: {f} not as predicted after the swap")
    if not same:
        reasons.append("the contestants' perturbed cells.csv differ")
    verdict = {
        "control": name,
        "kind": kind,
        "selection": selection,
        "cells_predicted": len(pred_rows),
        "cells_ok": cells_ok,
        "unpredicted": {i: len(m[i]["unpredicted"]) for i in impls},
        "class_changes": {i: m[i]["class_changes"] for i in impls},
        "identical_to_unperturbed": {i: m[i]["identical_to_unperturbed"] for i in impls},
        "contestants_identical": same,
        **(
            {"ranks_predicted": rank["columns"], "ranks_not_predicted": rank["not_predicted"]}
            if rank is not None
            else {}
        ),
        "verdict": _verdict(reasons, skipped),
        "reasons": reasons or ([skipped] if skipped else []),
    }
    write_atomic(out_csv, buf.getvalue())
    write_atomic(out_json, json.dumps(verdict, indent=2, sort_keys=True) + "\n")
    return verdict
