"""The demo bundle with edge rows: the demo's own six rows cannot tell some faults apart.

Written for the self-test only (the demo bundle itself, and every golden value
resting on it, is unchanged). It is the demo bundle plus two leaderboard rows
and some instance rows no recipe reads, all audited under prereg/demo.yaml.
Worked by hand (tiers: score 1 decimal, 0.05, 0.5; average_score 2
decimals; cost 4 decimals, 0.005, 0.05):

m5 alpha: 1 true of 16 -> A = B = 100/16 = 6.25 exactly, a tie at one
   decimal: half to even 6.2 = published 6.2, tier 0 (half up: 6.3, then
   |6.2 - 6.25| = 0.05 <= 0.05, tier 1). Costs 1e16, 1.0, -1e16 and 13 zeros:
   exact sum 1, C = D = 1/16 = 0.0625 (published 0.0625, tier 0); summed left
   to right in doubles 1e16 + 1 rounds back to 1e16 and the mean is 0.0
   (|diff| 0.0625: divergent).
m5 beta: 1 true of 4 -> 25.0; published 25.5: |diff| = 0.5 exactly, tier 2
   under <= (divergent under <). Costs 0.25 x4 -> 0.25 (published).
   average_score (6.25 + 25)/2 = 15.625, a tie at two decimals: 15.62 half to
   even = published, tier 0. average_cost (0.0625 + 0.25)/2 = 0.15625: 0.1562
   half to even = published, tier 0.
m6 alpha only: T F -> 50.0 (published); costs 0.5 0.5 -> 0.5. Its first
   instance row has a null model, the second "m6-base" (published): the one
   distinct non-null value. No beta rows: beta cells no_data (published null);
   average_score 50.0 and average_cost 0.5 over the one column with data
   (over both listed columns they would be 25.0 and 0.25: divergent).
demo/m1 also has three rows of group "ALPHA" (all true, cost 9.0): no
   recipe's group, so ignored; read case-insensitively they would join alpha.
Census: 6 x 14 = 84 cells: 18 structural, 24 no_antecedent, 35 reproduced,
3 divergent, 4 no_data.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from audit.bundles import demo as demo_bundle
from audit.files import write_atomic

T, F, N = True, False, None
EXTRA_INSTANCES: list[tuple[str, str, list[bool | None], list[float | None], list[str | None]]] = [
    ("demo/m5", "alpha", [T] + [F] * 15, [1e16, 1.0, -1e16] + [0.0] * 13, ["m5-base"] * 16),
    ("demo/m5", "beta", [T, F, F, F], [0.25] * 4, ["m5-base"] * 4),
    ("demo/m6", "alpha", [T, F], [0.5, 0.5], [None, "m6-base"]),
    ("demo/m1", "ALPHA", [T, T, T], [9.0, 9.0, 9.0], ["m1-base"] * 3),
]
EXTRA_ROWS = {
    "id": ["demo/m5", "demo/m6"],
    "agent_name": ["EdgeAgent", "EdgeAgent"],
    "categories_completed": [2, 1],
    "model": ["m5-base", "m6-base"],
    "notes": [None, "alpha only"],
    "release": ["2026-05-01", "2026-06-01"],
    "open_weights": [False, None],
    "runtime": [None, 3.5],
    "alpha_score": [6.2, 50.0],
    "beta_score": [25.5, None],
    "alpha_cost": [0.0625, 0.5],
    "beta_cost": [0.25, None],
    "average_score": [15.62, 50.0],
    "average_cost": [0.1562, 0.5],
}
CENSUS = {"structural": 18, "no_antecedent": 24, "reproduced": 35, "divergent": 3, "no_data": 4}


def instances() -> pl.DataFrame:
    base = demo_bundle.instances()
    rows = [
        (rid, model, group, f"{group}-{n:02d}", res, cost)
        for rid, group, resolved, costs, models in EXTRA_INSTANCES
        for n, (res, cost, model) in enumerate(zip(resolved, costs, models, strict=True))
    ]
    extra = pl.DataFrame(rows, schema=base.schema, orient="row")
    return pl.concat([base, extra]).sort("id", "group", "instance_id")


def leaderboard() -> pl.DataFrame:
    extra = pl.DataFrame(EXTRA_ROWS, schema=demo_bundle.SCHEMA)
    return pl.concat([demo_bundle.leaderboard(), extra])


def write(out_dir: str | Path) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, df in (("leaderboard.parquet", leaderboard()), ("instances.parquet", instances())):
        write_atomic(out / name, demo_bundle._parquet_bytes(df, out / name))
    return out
