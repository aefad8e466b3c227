"""What a swap control does to the rank census (docs/contract.md, Ranks; docs/controls.md).

Swapping two rows' instance rows gives each the other's outcomes and leaves the
published values, the items and the draws as they were. Every figure of the rank
census is then the unperturbed one relabelled: the pair (u, v) after the swap holds the
outcomes of (s(u), s(v)) before (s exchanges the two rows), so its shared count and p
are theirs, its a_only and b_only theirs or exchanged as s(u) stood above or below
s(v), and its verdict theirs (separated and reversed exchanged with the orientation);
the correction sees the same p-values; each draw of the bootstrap ranks the same values
on other rows. So the prediction is read from the unperturbed run's ranks.csv and
rank_pairs.csv, no contestant's code involved. A column where only one of the two rows
is ranked (the other's published value is empty) is not predicted: the ranked row's
outcomes become those of a row the census leaves out.
"""

from __future__ import annotations

import csv
import io

FLIPPED = {"separated": "reversed", "reversed": "separated", "tied": "tied"}


def _read(text: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(text))
    return list(reader.fieldnames or []), list(reader)


def _write(header: list[str], rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, header, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def predict(pair: list[str], ranks_text: str, pairs_text: str) -> dict:
    """{"ranks.csv": text, "rank_pairs.csv": text, "columns": predicted columns,
    "not_predicted": {column: why}} after swapping the two rows' outcomes."""
    r_head, rows = _read(ranks_text)
    p_head, pairs = _read(pairs_text)
    a, b = pair
    swap = {a: b, b: a}
    columns = list(dict.fromkeys(r["column"] for r in rows))
    out_rows: list[dict[str, str]] = []
    out_pairs: list[dict[str, str]] = []
    predicted, skipped = [], {}
    for col in columns:
        mine = [r for r in rows if r["column"] == col]
        order = [r["row_id"] for r in mine]
        if (a in order) != (b in order):
            ranked = a if a in order else b
            skipped[col] = (
                f"only {ranked} is ranked in {col}: its outcomes become those of a row the "
                "census leaves out"
            )
            continue
        predicted.append(col)
        pos = {r: i for i, r in enumerate(order)}
        by_row = {r["row_id"]: r for r in mine}
        before = {(p["row_a"], p["row_b"]): p for p in pairs if p["column"] == col}
        verdict: dict[tuple[str, str], str] = {}
        for i, u in enumerate(order):
            for v in order[i + 1 :]:
                su, sv = swap.get(u, u), swap.get(v, v)
                flip = pos[su] > pos[sv]
                src = before[(sv, su) if flip else (su, sv)]
                new = {**src, "row_a": u, "row_b": v}
                if flip:
                    new["a_only"], new["b_only"] = src["b_only"], src["a_only"]
                    new["verdict"] = FLIPPED[src["verdict"]]
                verdict[(u, v)] = new["verdict"]
                out_pairs.append(new)
        for i, r in enumerate(order):
            src = by_row[swap.get(r, r)]
            group = [
                s
                for s in order
                if s == r or verdict[(r, s) if pos[r] < pos[s] else (s, r)] == "tied"
            ]
            out_rows.append(
                {
                    **by_row[r],
                    **{k: src[k] for k in ("passes", "items", "rank_lo", "rank_hi")},
                    "tie_group": "; ".join(group),
                    "next_verdict": verdict[(r, order[i + 1])] if i + 1 < len(order) else "",
                }
            )
    return {
        "ranks.csv": _write(r_head, out_rows),
        "rank_pairs.csv": _write(p_head, out_pairs),
        "columns": predicted,
        "not_predicted": skipped,
    }


def predicted_part(text: str, columns: list[str]) -> str:
    """A rank file's lines of the predicted columns only (header kept), for the check."""
    head, rows = _read(text)
    return _write(head, [r for r in rows if r["column"] in columns])
