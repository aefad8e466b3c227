"""The rank census of a trials arm (docs/trials-contract.md, section 17): per declared
column, the rows in published order and each row's per-task means under the declared
policy (exact, as whole numbers over one power of two), handed to the cells-v1 census of
a mean column. Pure Python."""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from .. import ranks as census
from ..errors import InputError, TrialInputError, fail


def _bad(path: str, detail: str) -> TrialInputError:
    return fail("bad_prereg", path, detail)


def spec(doc: dict[Any, Any], path: str, pr: Any) -> tuple[census.RankSpec, str] | None:
    """(the cells-v1 spec, the policy) of `ranks`, if declared; bad_prereg otherwise."""
    if "ranks" not in doc:
        return None
    raw = doc["ranks"]
    board = pr.leaderboard
    if board is None:
        raise _bad(path, "key ranks: no leaderboard to order (leaderboard: null)")
    if not isinstance(raw, dict) or "policy" not in raw:
        raise _bad(path, "key ranks is not a mapping with a policy")
    policy = raw["policy"]
    if not isinstance(policy, str) or policy not in pr.policies:
        raise _bad(path, f"ranks.policy {policy!r} is not a policy of the prereg")
    measured: dict[str, Any] = {}
    columns = raw.get("columns")
    for c in columns if isinstance(columns, list) else []:
        if isinstance(c, str):
            col = board.measured.get(c)
            macro = col is not None and any(r.measure == "reward_macro" for r in col.recipes)
            if not macro or not col.in_table:
                raise _bad(path, f"ranks.columns: {c!r} is not a published reward_macro column")
            measured[c] = SimpleNamespace(recipe="mean", total=False)  # a reward mean, not a sum
    try:
        got = census.spec(
            {"ranks": {k: v for k, v in raw.items() if k != "policy"}}, path, measured
        )
    except InputError as e:  # the cells-v1 keys' own refusals, in this contract's class
        raise _bad(path, e.detail) from None
    assert got is not None
    return got, policy


def _exact(v: Any) -> Fraction | None:
    """A published number's exact value (a CSV decimal is its text); None when not one."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, str):
        return Fraction(v)
    if isinstance(v, float) and math.isnan(v):
        return None
    return Fraction(v)


def rows(
    rs: census.RankSpec, policy: str, lb: Any, per_task: dict[tuple[str, str], list[Any]]
) -> tuple[list[list[str]], list[list[str]]]:
    """(pairs rows, rows rows) of every declared column."""
    means: dict[str, dict[str, float]] = {}
    for (entry, pname), values in per_task.items():
        if pname == policy:
            means[entry] = {t.task: t.mean for t in values if t.mean is not None}
    pair_rows: list[list[str]] = []
    row_rows: list[list[str]] = []
    for c_index, name in enumerate(rs.columns):
        valued = [(_exact(v), rid) for rid, v in zip(lb.row_ids, lb.values[name])]
        ranked = sorted(
            ((x, rid) for x, rid in valued if x is not None), key=lambda p: (-p[0], p[1])
        )
        ids = [rid for _, rid in ranked]
        whole = census.whole({rid: means.get(rid, {}) for rid in ids})
        out = [whole[rid] for rid in ids]
        items = sorted({t for m in out for t in m})
        got = census.column_rows(name, ids, out, items, True, rs, c_index)
        pair_rows += got[0]
        row_rows += got[1]
    return pair_rows, row_rows
