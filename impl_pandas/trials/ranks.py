"""The rank census of a trials arm (docs/trials-contract.md, section 17): each declared
column's rows in published order, their per-task means under the declared policy as a
rows-by-tasks matrix, and the cells-v1 census of a mean column over it."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

from .. import ranks as census
from ..errors import InputError
from . import tasks


def parse(doc: Any, path: str, pre: Any) -> tuple[census.Ranks, str] | None:
    """(the cells-v1 spec, the policy) of the optional `ranks` key; bad_prereg when malformed."""
    if not isinstance(doc, dict) or "ranks" not in doc:
        return None
    raw = doc["ranks"]

    def bad(detail: str) -> InputError:
        return InputError("bad_prereg", path, f"ranks: {detail}")

    if pre.leaderboard is None:
        raise bad("declared with leaderboard: null (nothing published to order)")
    if not isinstance(raw, dict) or "policy" not in raw:
        raise bad("must be a mapping of exactly columns, policy, alpha, correction, seed, draws")
    policy = raw["policy"]
    if not isinstance(policy, str) or policy not in pre.policies:
        raise bad(f"policy {policy!r} is not a policy of the prereg")
    lb = pre.leaderboard
    cols = raw.get("columns")
    fit = {}
    for c in cols if isinstance(cols, list) else []:
        if not isinstance(c, str):
            continue
        m = lb.measured.get(c)
        if m is None or c in lb.unpublished or all(r.measure != "reward_macro" for r in m.rules):
            raise bad(f"'{c}' is not a published measured column with measure reward_macro")
        fit[c] = SimpleNamespace(recipe="mean", total=False)  # a reward mean, not a sum
    rest = {k: v for k, v in raw.items() if k != "policy"}
    spec = census.parse({"ranks": rest}, path, fit)
    assert spec is not None
    return spec, policy


def _number(v: Any) -> Fraction | None:
    """A published value's exact value: a double's binary value, a decimal's text."""
    if v is None or v is pd.NA or isinstance(v, bool):
        return None
    if isinstance(v, str):
        return Fraction(v)
    if isinstance(v, (float, np.floating)) and np.isnan(v):
        return None
    return Fraction(v)


def build(
    spec: census.Ranks, policy: str, ids: list[str], published: dict[str, list[Any]],
    per_policy: dict[str, dict[str, list[tasks.TaskValue]]],
) -> tuple[list[list[str]], list[list[str]]]:  # fmt: skip
    """(rank_pairs.csv rows, ranks.csv rows) of every declared column."""
    means = pd.DataFrame(
        [
            (entry, t.task, t.mean)
            for entry, values in per_policy[policy].items()
            for t in values
            if t.mean is not None and not t.unordered
        ],
        columns=["entry", "task", "mean"],
    )
    pair_out: list[list[str]] = []
    row_out: list[list[str]] = []
    for c_index, name in enumerate(spec.columns):
        board = pd.DataFrame({"rid": ids, "value": [_number(v) for v in published[name]]})
        board = board[board["value"].notna()]
        board = board.sort_values(["value", "rid"], ascending=[False, True], kind="stable")
        data = means[means["entry"].isin(board["rid"])]
        item_codes, _ = pd.factorize(data["task"], sort=True)  # code point order of the tasks
        pos = pd.Index(board["rid"]).get_indexer(data["entry"])
        pairs_c, rows_c = census.column_rows(
            name, board["rid"].tolist(), int(item_codes.max(initial=-1)) + 1, pos,
            item_codes, data["mean"].to_numpy(dtype=float), True, spec, c_index,
        )  # fmt: skip
        pair_out += pairs_c
        row_out += rows_c
    return pair_out, row_out
