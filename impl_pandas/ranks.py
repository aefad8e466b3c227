"""The rank census (docs/contract.md, Ranks), in pandas and numpy: outcomes as a
rows-by-items matrix (a mean column's doubles as whole numbers over one power of two,
int64 where every sum fits, else Python integers in object arrays), discordant counts
and every pair's sign-flip sums for all draws at once by matrix products, exact tails
in whole numbers, the bootstrap's draws as one uint64 array."""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
from blake3 import blake3

from .errors import InputError
from .read import load_table
from .values import format_value

PAIRS_HEADER = [
    "column", "row_a", "row_b", "shared", "a_only", "b_only", "p", "p_adjusted", "verdict",
]  # fmt: skip
ROWS_HEADER = [
    "column", "row_id", "published_rank", "passes", "items", "tie_group",
    "rank_lo", "rank_hi", "next_verdict",
]  # fmt: skip
KEYS = ("columns", "alpha", "correction", "seed", "draws")


@dataclass(frozen=True)
class Ranks:
    columns: tuple[str, ...]
    alpha: Fraction
    correction: str
    seed: int
    draws: int


def parse(doc: Any, path: str, measured: dict[str, Any]) -> Ranks | None:
    """The optional `ranks` key (bad_prereg when malformed)."""
    if not isinstance(doc, dict) or "ranks" not in doc:
        return None
    raw = doc["ranks"]

    def bad(detail: str) -> InputError:
        return InputError("bad_prereg", path, f"ranks: {detail}")

    if not isinstance(raw, dict) or set(raw) != set(KEYS):
        raise bad(f"must be a mapping of exactly {', '.join(KEYS)}")
    cols = raw["columns"]
    if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
        raise bad("columns must be a non-empty list of distinct names")
    if pd.Series(cols, dtype=object).duplicated().any():
        raise bad("columns must be a non-empty list of distinct names")
    for c in cols:
        m = measured.get(c)
        if m is None or m.recipe not in ("rate", "mean") or m.total:  # a sum is not ranked
            raise bad(f"'{c}' is not a measured rate or mean column of the prereg")
    a = raw["alpha"]
    if isinstance(a, bool) or not isinstance(a, (int, float)) or not np.isfinite(a):
        raise bad("alpha must be a number")
    alpha = Fraction(str(a))
    if alpha <= 0 or alpha >= 1:
        raise bad("alpha must lie strictly between 0 and 1")
    if raw["correction"] not in ("holm", "bh"):
        raise bad("correction must be holm or bh")
    for key in ("seed", "draws"):
        v = raw[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "seed" else 1):
            raise bad(f"{key} must be a whole number (seed >= 0, draws >= 1)")
    return Ranks(tuple(cols), alpha, raw["correction"], raw["seed"], raw["draws"])


def _tail(a_only: int, b_only: int) -> Fraction:
    """Exact two-sided sign test: 2 P(X <= min) for X ~ Bin(d, 1/2), at most 1."""
    d = int(a_only + b_only)
    if d == 0:
        return Fraction(1)
    low = int(min(a_only, b_only))
    term, total = 1, 1  # C(d, 0); then C(d, k+1) = C(d, k) (d - k) / (k + 1)
    for k in range(low):
        term = term * (d - k) // (k + 1)
        total += term
    return Fraction(min(2 * total, 1 << d), 1 << d)


def _adjusted(p: pd.Series, correction: str) -> pd.Series:
    """Holm (step-down running maximum) or BH (step-up running minimum), exactly."""
    m = len(p)
    if m == 0:
        return p
    ordered = p.sort_values(kind="stable")
    j = np.arange(1, m + 1)
    one = Fraction(1)
    if correction == "holm":
        scaled = np.array([min(one, (m - i + 1) * v) for i, v in zip(j, ordered)], dtype=object)
        adj = np.maximum.accumulate(scaled)
    else:
        scaled = np.array([min(one, m * v / i) for i, v in zip(j, ordered)], dtype=object)
        adj = np.minimum.accumulate(scaled[::-1])[::-1]
    return pd.Series(adj, index=ordered.index, dtype=object).reindex(p.index)


def _fixed(p: Fraction) -> str:
    q = round(p * 10**12)
    whole, frac = divmod(q, 10**12)
    return f"{whole}.{str(frac).rjust(12, '0')}"


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _splitmix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def draws_matrix(seed: int, c_index: int, draws: int, n: int) -> np.ndarray:
    """(draws, n) item positions drawn by the contract's counter-based rule."""
    counter = np.arange(draws * n, dtype=np.uint64) + np.uint64(c_index * draws * n + 1)
    with np.errstate(over="ignore"):
        state = np.uint64(seed % 2**64) + _GOLDEN * counter
    return (_splitmix(state) % np.uint64(n)).astype(np.int64).reshape(draws, n)


def exact_matrix(values: np.ndarray, n_items: int) -> np.ndarray:
    """Doubles as whole numbers over the least power of two that makes them all whole
    (frexp's mantissas with their trailing zero bits dropped): int64 when n^2 times
    twice the largest still fits, else Python integers (object)."""
    mant, expo = np.frexp(values)
    whole = (mant * 2.0**53).astype(np.int64)
    expo = expo.astype(np.int64) - 53
    nonzero = whole != 0
    low = np.where(nonzero, whole & -whole, 1)  # the lowest set bit
    tz = np.frexp(low.astype(float))[1].astype(np.int64) - 1
    whole = whole >> tz
    expo = expo + tz
    base = int(expo[nonzero].min()) if nonzero.any() else 0
    shift = np.where(nonzero, expo - base, 0)
    bits = np.frexp(np.abs(whole).astype(float))[1].astype(np.int64) + shift
    if int(bits.max(initial=0)) + 2 * max(n_items, 1).bit_length() + 1 <= 62:
        return whole << shift
    return np.array([int(w) << int(h) for w, h in zip(whole, shift)], dtype=object)


def flip_signs(seed: int, column: str, draws: int, n: int) -> np.ndarray:
    """(draws, n) signs, -1 where the contract's labelled blake3 stream flips the item."""
    first = np.fromiter(
        (
            blake3(f"perm:{seed}|{column}|{d}|{j}".encode()).digest(1)[0]
            for d in range(draws)
            for j in range(n)
        ),
        dtype=np.uint8,
        count=draws * n,
    )
    return np.where(first >= 0x80, -1, 1).astype(np.int64).reshape(draws, n)


def _signed_sums(signs: np.ndarray, values: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(draws, rows, rows): entry [d, a, b] is T_d of the pair (a, b), the signed sum of
    x_a - x_b over the items both hold. Row a's signed sum over the items b holds is its
    whole signed sum less the part on the items b lacks."""
    whole = signs @ values.T  # (draws, rows)
    part = np.empty((signs.shape[0], held.shape[0], held.shape[0]), dtype=whole.dtype)
    for b in range(held.shape[0]):
        lacks = ~held[b]
        part[:, :, b] = whole - signs[:, lacks] @ values[:, lacks].T
    return part - part.transpose(0, 2, 1)


def _permutation(
    values: np.ndarray,
    held: np.ndarray,
    rk: Ranks,
    column: str,
    a_idx: np.ndarray,
    b_idx: np.ndarray,
) -> tuple[list[Fraction], np.ndarray]:
    """Each pair's sign-flip p, (1 + #{d: |T_d| >= |T|}) / (1 + D), and T's sign."""
    n = held.shape[1]
    signs = np.vstack([np.ones((1, n), dtype=np.int64), flip_signs(rk.seed, column, rk.draws, n)])
    t = _signed_sums(signs, values, held)[:, a_idx, b_idx]  # draw 0: the identity
    size = np.abs(t)
    hits = (size[1:] >= size[0]).sum(axis=0)
    ps = [Fraction(1 + int(h), 1 + rk.draws) for h in hits]
    return ps, np.array([int(v > 0) - int(v < 0) for v in t[0]], dtype=np.int64)


def _intervals(
    passed: np.ndarray, held: np.ndarray, rk: Ranks, c_index: int
) -> tuple[np.ndarray, np.ndarray]:
    k, n = held.shape
    if n == 0:
        return np.ones(k, dtype=np.int64), np.ones(k, dtype=np.int64)
    picks = draws_matrix(rk.seed, c_index, rk.draws, n)
    offsets = (np.arange(rk.draws) * n)[:, None]
    weights = np.bincount((picks + offsets).ravel(), minlength=rk.draws * n)
    weights = weights.reshape(rk.draws, n)
    num = weights @ passed.T  # (draws, rows): weighted sums of outcomes
    den = weights @ held.T.astype(np.int64)
    num = np.where(den == 0, 0, num)
    den = np.where(den == 0, 1, den)
    # s above r in a draw: num_s / den_s > num_r / den_r, compared crosswise in integers
    above = num[:, None, :] * den[:, :, None] > num[:, :, None] * den[:, None, :]
    rank = 1 + above.sum(axis=2)  # (draws, rows)
    rank.sort(axis=0)
    cut = min(rk.draws, int(rk.draws * rk.alpha / 2) + 1)
    return rank[cut - 1], rank[rk.draws - cut]


def column_rows(
    name: str,
    shown: list[str],
    n: int,
    pos: np.ndarray,
    item: np.ndarray,
    raw: np.ndarray,
    graded: bool,
    rk: Ranks,
    c_index: int,
) -> tuple[list[list[str]], list[list[str]]]:
    """One column's rank_pairs.csv and ranks.csv rows: rows in published order (their shown
    ids), outcome j lies at (pos[j], item[j]) with value raw[j] (a rate's booleans, a
    mean's doubles), items numbered 0..n-1 in the contract's order."""
    pair_out: list[list[str]] = []
    row_out: list[list[str]] = []
    k = len(shown)
    held = np.zeros((k, n), dtype=bool)
    held[pos, item] = True
    shared = held.astype(np.int64) @ held.T.astype(np.int64)
    a_idx, b_idx = np.triu_indices(k, 1)
    if graded:
        exact = exact_matrix(raw, n)
        values = np.zeros((k, n), dtype=exact.dtype)
        values[pos, item] = exact
        both = held[:, None, :] & held[None, :, :]
        greater = ((values[:, None, :] > values[None, :, :]) & both).sum(axis=2)
        ps, sign = _permutation(values, held, rk, name, a_idx, b_idx)
    else:
        values = np.zeros((k, n), dtype=np.int64)
        values[pos, item] = raw
        greater = values @ (held & (values == 0)).T.astype(np.int64)  # a true, b false
    pairs = pd.DataFrame(
        {
            "a": a_idx,
            "b": b_idx,
            "shared": shared[a_idx, b_idx],
            "a_only": greater[a_idx, b_idx],
            "b_only": greater[b_idx, a_idx],
        }
    )
    if graded:
        pairs["p"] = pd.Series(ps, dtype=object)
        pairs["sign"] = sign
    else:
        pairs["p"] = [_tail(x, y) for x, y in zip(pairs["a_only"], pairs["b_only"])]
        pairs["sign"] = np.sign(pairs["a_only"] - pairs["b_only"])
    pairs["q"] = _adjusted(pairs["p"], rk.correction)
    sep = pairs["q"].map(lambda q: q <= rk.alpha).astype(bool) & (pairs["sign"] != 0)
    pairs["verdict"] = np.where(sep, np.where(pairs["sign"] > 0, "separated", "reversed"), "tied")
    for t in pairs.itertuples(index=False):
        pair_out.append(
            [name, shown[t.a], shown[t.b], str(t.shared), str(t.a_only), str(t.b_only),
             _fixed(t.p), _fixed(t.q), t.verdict]
        )  # fmt: skip
    tied = np.eye(k, dtype=bool)
    ties = pairs[pairs["verdict"] == "tied"]
    tied[ties["a"], ties["b"]] = True
    tied[ties["b"], ties["a"]] = True
    nxt = pairs[pairs["b"] == pairs["a"] + 1].set_index("a")["verdict"]
    lo, hi = _intervals(values, held, rk, c_index)
    for r in range(k):
        passes = "" if graded else str(int(values[r].sum()))
        row_out.append(
            [name, shown[r], str(r + 1), passes, str(int(held[r].sum())),
             "; ".join(np.asarray(shown, dtype=object)[tied[r]]),
             str(int(lo[r])), str(int(hi[r])), nxt.get(r, "")]
        )  # fmt: skip
    return pair_out, row_out


def build(
    pre: Any, board: Any, shown_ids: list[str], rk: Ranks, bundle_dir: str
) -> tuple[list[list[str]], list[list[str]]]:
    """(rank_pairs.csv rows, ranks.csv rows) for every declared column."""
    inst_name = pre.instances
    path = os.path.join(bundle_dir, inst_name)
    item_cols = [k for k in pre.instance_key if k != pre.row_id]
    frame = board.frame
    pair_out: list[list[str]] = []
    row_out: list[list[str]] = []
    for c_index, name in enumerate(rk.columns):
        col = pre.measured[name]
        lb = pd.DataFrame(
            {
                "rid": frame[pre.row_id].to_numpy(dtype=object),
                "shown": shown_ids,
                "value": pd.to_numeric(frame[name], errors="coerce").astype(float),
            }
        ).dropna(subset=["value"])
        lb = lb.sort_values(["value", "shown"], ascending=[False, True], kind="stable")
        lb = lb.reset_index(drop=True)
        wanted = list(dict.fromkeys([pre.row_id, *item_cols, col.source]))
        if col.group is not None and pre.group_by not in wanted:
            wanted.append(pre.group_by)
        table = load_table(path, path, wanted)
        data = table.frame
        assert data is not None
        keep = data[col.source].notna() & data[pre.row_id].isin(lb["rid"])
        graded = col.recipe == "mean"
        if graded:  # NaN is null
            keep &= ~np.isnan(data[col.source].to_numpy(dtype=float, na_value=np.nan))
        if col.group is not None:
            keep &= data[pre.group_by] == col.group
        data = data[keep]
        # items numbered in the code point order of their shown key values
        shown_keys = pd.DataFrame(
            {c: data[c].map(lambda v, k=table.kinds[c]: format_value(v, k)) for c in item_cols}
        )
        item = (
            shown_keys.groupby(item_cols, sort=True).ngroup().to_numpy()
            if item_cols
            else np.zeros(len(data), dtype=np.int64)
        )
        n = int(item.max()) + 1 if len(item) else 0
        pos = pd.Index(lb["rid"]).get_indexer(data[pre.row_id])
        raw = data[col.source].to_numpy(dtype=float if graded else bool)
        pairs_c, rows_c = column_rows(
            name, lb["shown"].tolist(), n, pos, item, raw, graded, rk, c_index
        )
        pair_out += pairs_c
        row_out += rows_c
    return pair_out, row_out
