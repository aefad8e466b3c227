"""The rank census (docs/contract.md, Ranks): exact paired sign tests (rate columns) or
seeded paired sign-flip permutation tests (mean columns) between rows on their shared
items, the declared multiplicity correction, tie groups, and rank intervals from the
contract's counter-based bootstrap. Pure Python: integers and Fractions for every
p-value and decision (a mean column's doubles as whole numbers over one power of two);
pyarrow only reads the instance columns."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from blake3 import blake3

from .errors import InputError
from .read import read_columns
from .values import format_value

PAIRS_HEADER = [
    "column", "row_a", "row_b", "shared", "a_only", "b_only", "p", "p_adjusted", "verdict",
]  # fmt: skip
ROWS_HEADER = [
    "column", "row_id", "published_rank", "passes", "items", "tie_group",
    "rank_lo", "rank_hi", "next_verdict",
]  # fmt: skip

RANKED = ("rate", "mean")
MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class RankSpec:
    columns: tuple[str, ...]
    alpha: Fraction
    correction: str
    seed: int
    draws: int


def _bad(path: str, detail: str) -> InputError:
    return InputError("bad_prereg", path, detail)


def spec(doc: dict[Any, Any], path: str, measured: dict[str, Any]) -> RankSpec | None:
    """`ranks`, if declared; bad_prereg where a key is missing, unknown or out of range."""
    if "ranks" not in doc:
        return None
    raw = doc["ranks"]
    keys = ("columns", "alpha", "correction", "seed", "draws")
    if not isinstance(raw, dict):
        raise _bad(path, "key ranks is not a mapping")
    for key in keys:
        if key not in raw:
            raise _bad(path, f"missing key ranks.{key}")
    extra = sorted(str(k) for k in raw if k not in keys)
    if extra:
        raise _bad(path, f"unknown key ranks.{extra[0]}")
    cols = raw["columns"]
    if not isinstance(cols, list) or not cols or len(set(map(str, cols))) != len(cols):
        raise _bad(path, "key ranks.columns is not a list of distinct column names")
    for c in cols:
        if (
            not isinstance(c, str)
            or c not in measured
            or measured[c].recipe not in RANKED
            or measured[c].total  # a sum, read as a mean, is not ranked
        ):
            raise _bad(path, f"ranks.columns: {c!r} is not a measured rate or mean column")
    alpha = raw["alpha"]
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not math.isfinite(alpha):
        raise _bad(path, "key ranks.alpha is not a number")
    a = Fraction(str(alpha))  # the decimal the prereg prints
    if not 0 < a < 1:
        raise _bad(path, "key ranks.alpha is not between 0 and 1")
    if raw["correction"] not in ("holm", "bh"):
        raise _bad(path, f"unknown correction ranks.correction {raw['correction']!r}")
    seed, draws = raw["seed"], raw["draws"]
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise _bad(path, "key ranks.seed is not a whole number of at least 0")
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise _bad(path, "key ranks.draws is not a whole number of at least 1")
    return RankSpec(tuple(cols), a, raw["correction"], seed, draws)


def sign_test(a_only: int, b_only: int) -> Fraction:
    """Exact two-sided McNemar (sign test on the discordant pairs), as a Fraction."""
    d = a_only + b_only
    if d == 0:
        return Fraction(1)
    tail = sum(math.comb(d, k) for k in range(min(a_only, b_only) + 1))
    return min(Fraction(1), Fraction(2 * tail, 2**d))


def adjust(ps: list[Fraction], correction: str) -> list[Fraction]:
    """Holm or Benjamini-Hochberg adjusted p-values, in the order given (ties of p
    keep the order given)."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out: list[Fraction] = [Fraction(0)] * m
    if correction == "holm":
        running = Fraction(0)
        for j, i in enumerate(order):
            running = max(running, min(Fraction(1), (m - j) * ps[i]))
            out[i] = running
    else:
        running = Fraction(1)
        for j in range(m - 1, -1, -1):
            i = order[j]
            running = min(running, min(Fraction(1), m * ps[i] / (j + 1)))
            out[i] = running
    return out


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def draw_index(seed: int, counter: int, n: int) -> int:
    """The contract's counter-based draw: an item position in 0..n-1."""
    return mix64((seed + GOLDEN * (1 + counter)) & MASK) % n


def fixed12(p: Fraction) -> str:
    q = round(p * 10**12)  # half to even, exactly
    return f"{q // 10**12}.{q % 10**12:012d}"


def flips(seed: int, column: str, draws: int, n: int) -> list[int]:
    """Each draw's flipped item positions as the bits of one whole number (bit j set: item
    j's sign flipped), by the contract's labelled blake3 stream."""
    out = []
    for d in range(draws):
        prefix = f"perm:{seed}|{column}|{d}|"
        bits = 0
        for j in range(n):
            if blake3(f"{prefix}{j}".encode()).digest(1)[0] >= 0x80:
                bits |= 1 << j
        out.append(bits)
    return out


def permutation_ps(
    out: list[dict[Any, int]],
    position: dict[Any, int],
    pairs: list[tuple[int, int]],
    flipped: list[int],
) -> list[Fraction]:
    """Two-sided sign-flip p of every pair, (1 + #{d: |T_d| >= |T|}) / (1 + D), T the sum
    over the pair's shared items of x_a - x_b. A draw's flipped part of a pair's sum is the
    flipped part of each row's whole sum less that of the items the other row lacks."""
    held = [{position[u]: v for u, v in m.items()} for m in out]
    # per draw and row: the sum of the row's flipped outcomes
    part = [[sum(v for j, v in row.items() if bits >> j & 1) for row in held] for bits in flipped]
    whole = [sum(row.values()) for row in held]
    ps = []
    for a, b in pairs:
        a_alone = [(j, v) for j, v in held[a].items() if j not in held[b]]
        b_alone = [(j, v) for j, v in held[b].items() if j not in held[a]]
        total = whole[a] - sum(v for _, v in a_alone) - whole[b] + sum(v for _, v in b_alone)
        hits = 0
        for bits, sums in zip(flipped, part):
            moved = (
                sums[a] - sum(v for j, v in a_alone if bits >> j & 1)
                - sums[b] + sum(v for j, v in b_alone if bits >> j & 1)
            )  # fmt: skip
            hits += abs(total - 2 * moved) >= abs(total)
        ps.append(Fraction(1 + hits, 1 + len(flipped)))
    return ps


def whole(values: dict[Any, dict[Any, Any]]) -> dict[Any, dict[Any, int]]:
    """Every double at its exact binary value, as whole numbers over one power of two."""
    ratios = {r: {u: float(v).as_integer_ratio() for u, v in m.items()} for r, m in values.items()}
    den = max((q for m in ratios.values() for _, q in m.values()), default=1)
    return {r: {u: p * (den // q) for u, (p, q) in m.items()} for r, m in ratios.items()}


def _outcomes(pr: Any, col: Any, in_path: str, wanted: set[Any]) -> tuple[list[Any], dict]:
    """(items in their canonical order, {row id: {item: outcome}}) of one column: a rate's
    outcomes are 0 or 1, a mean's whole numbers over the column's one power of two."""
    item_names = [k for k in pr.instance_key if k != pr.row_id]
    names = list(
        dict.fromkeys([pr.row_id, *item_names, col.source, *([pr.group_by] if col.group else [])])
    )
    table = read_columns(in_path, names)
    data = {n: table.column(n).to_pylist() for n in names}
    groups = data[pr.group_by] if col.group else None
    items: dict[Any, None] = {}
    by_row: dict[Any, dict[Any, bool]] = {}
    for i, rid in enumerate(data[pr.row_id]):
        if rid not in wanted or (groups is not None and groups[i] != col.group):
            continue
        value = data[col.source][i]
        if value is None or (col.recipe == "mean" and math.isnan(value)):
            continue
        item = tuple(data[n][i] for n in item_names)
        items.setdefault(item, None)
        by_row.setdefault(rid, {})[item] = int(bool(value)) if col.recipe == "rate" else value
    if col.recipe == "mean":
        by_row = whole(by_row)
    types = {f.name: f.type for f in table.schema}
    # items in the code point order of their shown key values (docs/contract.md, Ranks)
    return sorted(
        items, key=lambda it: [format_value(v, types[n]) for v, n in zip(it, item_names)]
    ), by_row


def column_rows(
    name: str,
    shown: list[str],
    out: list[dict[Any, int]],
    items: list[Any],
    graded: bool,
    rs: RankSpec,
    c_index: int,
) -> tuple[list[list[str]], list[list[str]]]:
    """One column's pairs rows and rows rows: `out` holds each row's outcomes (published
    order) by item, `items` every item in the contract's order."""
    pair_rows: list[list[str]] = []
    row_rows: list[list[str]] = []
    k = len(shown)
    position = {u: j for j, u in enumerate(items)}
    flipped = flips(rs.seed, name, rs.draws, len(items)) if graded else []
    pairs: list[tuple[int, int, int, int, int]] = []
    signs: list[int] = []
    for a in range(k):
        for b in range(a + 1, k):
            shared = out[a].keys() & out[b].keys()
            diffs = [out[a][u] - out[b][u] for u in shared]
            pairs.append((a, b, len(shared), sum(v > 0 for v in diffs), sum(v < 0 for v in diffs)))
            total = sum(diffs)
            signs.append((total > 0) - (total < 0))
    if graded:
        ps = permutation_ps(out, position, [(p[0], p[1]) for p in pairs], flipped)
    else:
        ps = [sign_test(p[3], p[4]) for p in pairs]
    adj = adjust(ps, rs.correction)
    verdict: dict[tuple[int, int], str] = {}
    for (a, b, n_shared, a_only, b_only), p, q, sign in zip(pairs, ps, adj, signs):
        if q <= rs.alpha and sign:
            v = "separated" if sign > 0 else "reversed"
        else:
            v = "tied"
        verdict[(a, b)] = v
        pair_rows.append(
            [name, shown[a], shown[b], str(n_shared), str(a_only), str(b_only),
             fixed12(p), fixed12(q), v]
        )  # fmt: skip
    lo, hi = _intervals(out, items, rs, c_index)
    for r in range(k):
        group = [
            shown[s] for s in range(k)
            if s == r or verdict[(min(r, s), max(r, s))] == "tied"
        ]  # fmt: skip
        passes = "" if graded else str(sum(out[r].values()))
        nxt = verdict[(r, r + 1)] if r + 1 < k else ""
        row_rows.append(
            [name, shown[r], str(r + 1), passes, str(len(out[r])), "; ".join(group),
             str(lo[r]), str(hi[r]), nxt]
        )  # fmt: skip
    return pair_rows, row_rows


def ranks_rows(
    pr: Any, lb: Any, rs: RankSpec, in_path: str
) -> tuple[list[list[str]], list[list[str]]]:
    """(pairs rows, rows rows) of every declared column, in the declared order."""
    pair_rows: list[list[str]] = []
    row_rows: list[list[str]] = []
    for c_index, name in enumerate(rs.columns):
        col = pr.measured[name]
        published = lb.values[name]
        present = [
            j for j, v in enumerate(published)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not math.isnan(v)
        ]  # fmt: skip
        # published order: greatest first; lb is already in shown-id order (stable sort)
        present.sort(key=lambda j: -published[j])
        ids = [lb.row_ids[j] for j in present]
        shown = [lb.row_shown[j] for j in present]
        items, by_row = _outcomes(pr, col, in_path, set(ids))
        out = [by_row.get(rid, {}) for rid in ids]
        pairs_c, rows_c = column_rows(name, shown, out, items, col.recipe == "mean", rs, c_index)
        pair_rows += pairs_c
        row_rows += rows_c
    return pair_rows, row_rows


def _intervals(
    out: list[dict[Any, int]], items: list[Any], rs: RankSpec, c_index: int
) -> tuple[list[int], list[int]]:
    """Each row's rank interval over the draws (docs/contract.md, Ranks)."""
    k, n, draws = len(out), len(items), rs.draws
    passed = [[out[r].get(u, 0) for u in items] for r in range(k)]
    held = [[1 if u in out[r] else 0 for u in items] for r in range(k)]
    ranks: list[list[int]] = [[] for _ in range(k)]
    for d in range(draws):
        base = (c_index * draws + d) * n
        drawn = [draw_index(rs.seed, base + i, n) for i in range(n)]
        rates: list[Fraction] = []
        for r in range(k):
            total = sum(map(held[r].__getitem__, drawn))
            passes = sum(map(passed[r].__getitem__, drawn))
            rates.append(Fraction(passes, total) if total else Fraction(0))
        for r in range(k):
            ranks[r].append(1 + sum(1 for s in range(k) if rates[s] > rates[r]))
    cut = min(draws, math.floor(draws * rs.alpha / 2) + 1)
    lo = [sorted(x)[cut - 1] if x else 1 for x in ranks]
    hi = [sorted(x)[draws - cut] if x else 1 for x in ranks]
    return lo, hi
