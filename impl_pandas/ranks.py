"""The rank census (docs/contract.md, Ranks), in pandas and numpy: outcomes as a
rows-by-items matrix, discordant counts for every pair at once by matrix products,
exact tails in whole numbers, the bootstrap's draws as one uint64 array."""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

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
        if m is None or m.recipe != "rate":
            raise bad(f"'{c}' is not a measured rate column of the prereg")
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
    num = weights @ passed.T.astype(np.int64)  # (draws, rows)
    den = weights @ held.T.astype(np.int64)
    num = np.where(den == 0, 0, num)
    den = np.where(den == 0, 1, den)
    # s above r in a draw: num_s / den_s > num_r / den_r, compared crosswise in integers
    above = num[:, None, :] * den[:, :, None] > num[:, :, None] * den[:, None, :]
    rank = 1 + above.sum(axis=2)  # (draws, rows)
    rank.sort(axis=0)
    cut = min(rk.draws, int(rk.draws * rk.alpha / 2) + 1)
    return rank[cut - 1], rank[rk.draws - cut]


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
        k = len(lb)
        held = np.zeros((k, n), dtype=bool)
        passed = np.zeros((k, n), dtype=bool)
        held[pos, item] = True
        passed[pos, item] = data[col.source].astype(bool).to_numpy()
        failed = held & ~passed
        shared = held.astype(np.int64) @ held.T.astype(np.int64)
        a_only = passed.astype(np.int64) @ failed.T.astype(np.int64)
        a_idx, b_idx = np.triu_indices(k, 1)
        pairs = pd.DataFrame(
            {
                "a": a_idx,
                "b": b_idx,
                "shared": shared[a_idx, b_idx],
                "a_only": a_only[a_idx, b_idx],
                "b_only": a_only[b_idx, a_idx],
            }
        )
        pairs["p"] = [_tail(x, y) for x, y in zip(pairs["a_only"], pairs["b_only"])]
        pairs["q"] = _adjusted(pairs["p"], rk.correction)
        sep = pairs["q"].map(lambda q: q <= rk.alpha).astype(bool)
        pairs["verdict"] = np.where(
            sep, np.where(pairs["a_only"] > pairs["b_only"], "separated", "reversed"), "tied"
        )
        shown = lb["shown"].tolist()
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
        lo, hi = _intervals(passed, held, rk, c_index)
        for r in range(k):
            row_out.append(
                [name, shown[r], str(r + 1), str(int(passed[r].sum())), str(int(held[r].sum())),
                 "; ".join(np.asarray(shown, dtype=object)[tied[r]]),
                 str(int(lo[r])), str(int(hi[r])), nxt.get(r, "")]
            )  # fmt: skip
    return pair_out, row_out
