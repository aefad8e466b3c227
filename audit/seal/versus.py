"""An amendment beside its parent: versus-<parent>.csv, versus-<parent>.json (docs/seal.md).

Both arms' census cells (``census_cells.csv``: the parent's as its verified annex
carries it, the amendment's own) side by side, one line per cell that either arm
measured, and the declared difference: the two locked preregs compared key by key
(policies added or removed, a population changed, tiers changed). Nothing is
written into the parent's folder, and nothing of the amendment enters the
parent's certificate; the comparison lives in the amendment's annex.

``moved`` per cell, from the parent's class and best tier to the amendment's:
``reconciled`` (not reproduced, now reproduced), ``diverged`` (reproduced, now
not), ``tier`` (reproduced in both, at another best tier), ``policies``
(reproduced in both at the same tier, by other policies), ``class`` (another
change of class, e.g. divergent to no_data, or a cell one arm does not measure),
``no`` (the same class, best tier and policies).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from audit.core.strict_yaml import read_strict
from audit.files import write_atomic
from audit.seal.lock_record import read_lock

UNMEASURED = ("structural", "no_antecedent")
FIELDS = ("class", "best_tier", "policies", "min_abs_diff")
HEADER = [
    "row_id",
    "column",
    *[f"parent_{f}" for f in FIELDS],
    *[f"amendment_{f}" for f in FIELDS],
    "moved",
]
MOVES = ("reconciled", "diverged", "tier", "policies", "class", "no")


@dataclass(frozen=True)
class Parent:
    arm: str
    head: str  # the parent's annex head the amendment declares
    totals: dict[str, int]  # measured cells per class, classes in code point order


@dataclass(frozen=True)
class Amendment:
    arm: str
    totals: dict[str, int]


@dataclass(frozen=True)
class VersusSummary:
    """versus-<parent>.json: the two arms' totals, the moves, and the declared difference."""

    parent: Parent
    amendment: Amendment
    moved: dict[str, int]  # cells per move, every one of MOVES
    by_column: dict[str, dict[str, int]]  # column -> reconciled and diverged cells
    reconciled: list[str]  # "row_id / column" of each reconciled cell
    diverged: list[str]
    declared: list[dict[str, str]]  # kind, key, parent, amendment (``declared``)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, sort_keys=True) + "\n"

    @classmethod
    def read(cls, path: Path) -> VersusSummary:
        doc = json.loads(path.read_text(encoding="utf-8"))
        parent, amendment = Parent(**doc.pop("parent")), Amendment(**doc.pop("amendment"))
        return cls(parent=parent, amendment=amendment, **doc)


def _cells(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return {(r["row_id"], r["column"]): r for r in csv.DictReader(f)}


def moved(a: dict[str, str] | None, b: dict[str, str] | None) -> str:
    """How a cell moved from the parent (a) to the amendment (b)."""
    if a is None or b is None:
        return "class"
    was, now = a["class"] == "reproduced", b["class"] == "reproduced"
    if was != now:
        return "reconciled" if now else "diverged"
    if a["class"] != b["class"]:
        return "class"
    if was and a["best_tier"] != b["best_tier"]:
        return "tier"
    if was and a["policies"] != b["policies"]:
        return "policies"
    return "no"


def rows(parent_cells: Path, cells: Path) -> list[dict[str, str]]:
    """One line per cell either arm measured, by (row_id, column) in code point order."""
    a, b = _cells(parent_cells), _cells(cells)
    out = []
    for key in sorted(set(a) | set(b)):
        pa, pb = a.get(key), b.get(key)
        if all(p is None or p["class"] in UNMEASURED for p in (pa, pb)):
            continue
        line = {"row_id": key[0], "column": key[1]}
        for side, p in (("parent", pa), ("amendment", pb)):
            for f in FIELDS:
                line[f"{side}_{f}"] = "" if p is None else p[f]
        line["moved"] = moved(pa, pb)
        out.append(line)
    return out


def _totals(cells: dict[tuple[str, str], dict[str, str]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in cells.values():
        if r["class"] not in UNMEASURED:
            out[r["class"]] = out.get(r["class"], 0) + 1
    return dict(sorted(out.items()))


def _flat(node: Any, where: str = "") -> dict[str, Any]:
    """Every leaf of a prereg as path -> value (a list is a leaf: its order is its meaning)."""
    if isinstance(node, dict) and node:
        out: dict[str, Any] = {}
        for k, v in node.items():
            out.update(_flat(v, f"{where}/{k}" if where else str(k)))
        return out
    return {where: node}


def _kind_of(path: str) -> str:
    """Which kind of difference a changed key is, in the issue's words."""
    parts = path.split("/")
    if parts[0] == "policies" and len(parts) > 2 and parts[2] in ("population", "select", "k"):
        return "population changed" if parts[2] == "population" else "selection changed"
    if parts[0] == "policies":
        return "policy changed"
    if parts[0] == "tolerances":
        return "tier changed"
    if parts[0] in ("columns", "leaderboard") and parts[-1] == "policies":
        return "policies of a column changed"
    return "changed"


def declared(parent_prereg: Path, prereg: Path) -> list[dict[str, str]]:
    """The declared difference: the locked preregs compared (``amends`` and ``name`` aside)."""
    a, b = read_strict(parent_prereg), read_strict(prereg)
    out: list[dict[str, str]] = []
    pa, pb = a.get("policies") or {}, b.get("policies") or {}
    for p in sorted(set(pb) - set(pa)):
        out.append(
            {
                "kind": "policy added",
                "key": f"policies/{p}",
                "parent": "",
                "amendment": _show(pb[p]),
            }
        )
    for p in sorted(set(pa) - set(pb)):
        out.append(
            {
                "kind": "policy removed",
                "key": f"policies/{p}",
                "parent": _show(pa[p]),
                "amendment": "",
            }
        )
    fa = {k: v for k, v in _flat(a).items() if not _skip(k, pa, pb)}
    fb = {k: v for k, v in _flat(b).items() if not _skip(k, pa, pb)}
    for key in sorted(set(fa) | set(fb)):
        if fa.get(key, _ABSENT) != fb.get(key, _ABSENT):
            out.append(
                {
                    "kind": _kind_of(key),
                    "key": key,
                    "parent": _show(fa.get(key, _ABSENT)),
                    "amendment": _show(fb.get(key, _ABSENT)),
                }
            )
    return out


_ABSENT = object()


def _skip(key: str, pa: dict, pb: dict) -> bool:
    top = key.split("/")[0]
    if top in ("amends", "name"):
        return True
    parts = key.split("/")
    return top == "policies" and len(parts) > 1 and (parts[1] not in pa or parts[1] not in pb)


def _show(v: Any) -> str:
    if v is _ABSENT:
        return "(absent)"
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def build(parent_annex: str, res_dir: str, out_csv: str, out_json: str) -> VersusSummary:
    """Write versus-<parent>.csv and versus-<parent>.json; return the summary."""
    annex, res = Path(parent_annex), Path(res_dir)
    manifest = json.loads((annex / "manifest.json").read_text(encoding="utf-8"))
    lock = read_lock(res / "lock" / "lock.json")
    assert lock.amends is not None  # versus runs for an amendment only
    lines = rows(annex / "census_cells.csv", res / "census_cells.csv")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=HEADER, lineterminator="\n")
    w.writeheader()
    w.writerows(lines)
    by_column: dict[str, dict[str, int]] = {}
    for r in lines:
        if r["moved"] in ("reconciled", "diverged"):
            col = by_column.setdefault(r["column"], {"reconciled": 0, "diverged": 0})
            col[r["moved"]] += 1
    summary = VersusSummary(
        parent=Parent(
            arm=manifest["arm"],
            head=lock.amends[1],
            totals=_totals(_cells(annex / "census_cells.csv")),
        ),
        amendment=Amendment(
            arm=Path(res_dir).name, totals=_totals(_cells(res / "census_cells.csv"))
        ),
        moved={m: sum(r["moved"] == m for r in lines) for m in MOVES},
        by_column=dict(sorted(by_column.items())),
        reconciled=[f"{r['row_id']} / {r['column']}" for r in lines if r["moved"] == "reconciled"],
        diverged=[f"{r['row_id']} / {r['column']}" for r in lines if r["moved"] == "diverged"],
        declared=declared(annex / "lock" / "prereg.yaml", res / "lock" / "prereg.yaml"),
    )
    write_atomic(out_csv, buf.getvalue())
    write_atomic(out_json, summary.to_json())
    return summary


def _summary(res: Path) -> VersusSummary | None:
    found = sorted(res.glob("versus-*.json"))
    return VersusSummary.read(found[0]) if found else None


def _totals_text(t: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in t.items()) or "(no measured cell)"


def paragraphs(res: Path) -> list[str] | None:
    """The amendment's section in words (report and certificate); None: not an amendment."""
    s = _summary(res)
    if s is None:
        return None
    p, a, m = s.parent, s.amendment, s.moved
    out = [
        f"This arm, `{a.arm}`, amends the sealed arm `{p.arm}` (annex head"
        f" `{p.head}`), measured on the same bundle content. It is an arm of its own: nothing"
        f" of it enters `{p.arm}`'s certificate, and `{p.arm}`'s files are not touched.",
        f"Totals of measured cells: `{p.arm}`: {_totals_text(p.totals)};"
        f" `{a.arm}`: {_totals_text(a.totals)}.",
        f"Cells that moved: {m['reconciled']} from not reproduced to reproduced,"
        f" {m['diverged']} from reproduced to not reproduced; {m['tier']} reproduce at another"
        f" best tier, {m['policies']} by other policies, {m['class']} changed class otherwise;"
        f" {m['no']} did not move (versus-{p.arm}.csv, one line per cell).",
    ]
    for col, n in s.by_column.items():
        out.append(f"- {col}: {n['reconciled']} reconciled, {n['diverged']} diverged.")
    why = [f"- {d['kind']}: `{d['key']}` {d['parent']} -> {d['amendment']}" for d in s.declared]
    out.append("Why, as declared (the two locked preregs compared):")
    out += why or ["- (no declared difference: the two locked preregs differ only in name)"]
    return out


def certificate_lines(res: Path) -> list[str]:
    """The certificate's section (empty when the arm amends nothing)."""
    words = paragraphs(res)
    if words is None:
        return []
    s = _summary(res)
    assert s is not None
    out = ["", f"## Amendment of arm {s.parent.arm}", ""]
    item = False
    for w in words:
        if out[-1] != "" and not (w.startswith("- ") and item):
            out.append("")
        out.append(w)
        item = w.startswith("- ")
    return out
