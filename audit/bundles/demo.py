"""The embedded demo bundle: four entries, two groups, every cell class and policy.

Each published value is chosen against a recomputation worked by hand below
(policies A/B: null resolved as failure / excluded; C/D: null cost excluded /
as 0; score tiers: 1 decimal, 0.05, 0.5; cost tiers: 4 decimals, 0.005, 0.05):

m1 alpha: resolved T T T F F F F null -> A 3/8 = 37.5, B 3/7 = 42.857143.
   Published 37.5: tier 0 under A only.  costs 1 x6, 2, null -> C 8/7 =
   1.142857, D 8/8 = 1.0. Published 1.1429: tier 0 under C only.
m1 beta: T T F F -> 50.0 (A, B); costs 0.5 x4 -> 0.5 (C, D). Published as is.
   average_score A (37.5 + 50)/2 = 43.75 (published), B 46.428571.
   average_cost C (8/7 + 0.5)/2 = 0.821429 -> published 0.8214; D 0.75.
m2 alpha: T T F -> 66.666667; published 66.62 rounds to 66.6, not 66.7, but
   |diff| = 0.046667 <= 0.05: tier 1.  costs 0.1 0.2 0.4 -> 0.233333 (0.2333).
m2 beta: 7 of 10 true -> 70.0; published 70.3: |diff| 0.3 <= 0.5: tier 2.
   costs 0.25 x10 -> 0.25; published 0.253: |diff| 0.003 <= 0.005: tier 1.
   average_score (66.666667 + 70)/2 = 68.333333 -> 68.33; average_cost
   (0.233333 + 0.25)/2 = 0.241667 -> 0.2417.
m3 alpha: five null resolved -> A 0/5 = 0.0, B no data; published 0.0. Five
   null costs -> C no data, D 0.0; published 0.0. No beta rows at all: both
   beta cells are no_data (published null). Averages: A 0.0, D 0.0 (published).
m4 alpha: T F F F -> 25.0; published 40.0: divergent (15.0) under A and B.
   costs 1 2 3 4 -> 2.5; published 2.54: |diff| 0.04: tier 2 (C and D).
m4 beta: T T -> 100.0 (published).  costs 0.2, null -> C 0.2, D 0.1;
   published 0.1: tier 0 under D only. average_score 62.5, published 70.0:
   divergent (7.5). average_cost D (2.5 + 0.1)/2 = 1.3 (published); C is the
   double nearest 1.35, 1.35000000000000008882..., whose exact distance from
   1.3 is just over 0.05: tier 0 under D only, C divergent.
   Its model is published "m4-large" but every instance row says "m4-base":
   divergent.
Census: 4 x 14 = 56 cells: 12 structural, 16 no_antecedent, 23 reproduced,
3 divergent, 2 no_data.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from audit.files import write_atomic

T, F, N = True, False, None

# (id, group, resolved list, cost list)
INSTANCES: list[tuple[str, str, list[bool | None], list[float | None]]] = [
    ("demo/m1", "alpha", [T, T, T, F, F, F, F, N], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, N]),
    ("demo/m1", "beta", [T, T, F, F], [0.5, 0.5, 0.5, 0.5]),
    ("demo/m2", "alpha", [T, T, F], [0.1, 0.2, 0.4]),
    ("demo/m2", "beta", [T] * 7 + [F] * 3, [0.25] * 10),
    ("demo/m3", "alpha", [N] * 5, [N] * 5),
    ("demo/m4", "alpha", [T, F, F, F], [1.0, 2.0, 3.0, 4.0]),
    ("demo/m4", "beta", [T, T], [0.2, N]),
]
MODELS = {"demo/m1": "m1-base", "demo/m2": "m2-base", "demo/m3": "m3-base", "demo/m4": "m4-base"}

LEADERBOARD = {
    "id": ["demo/m1", "demo/m2", "demo/m3", "demo/m4"],
    "agent_name": ["DemoAgent", "DemoAgent", "OtherAgent", "DemoAgent"],
    "categories_completed": [2, 2, 1, 2],
    "model": ["m1-base", "m2-base", "m3-base", "m4-large"],
    "notes": ["first", "second, with a comma", None, 'quote "inside"'],
    "release": ["2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01"],
    "open_weights": [True, False, None, True],
    "runtime": [12.5, 7.25, None, 100.0],
    "alpha_score": [37.5, 66.62, 0.0, 40.0],
    "beta_score": [50.0, 70.3, None, 100.0],
    "alpha_cost": [1.1429, 0.2333, 0.0, 2.54],
    "beta_cost": [0.5, 0.253, None, 0.1],
    "average_score": [43.75, 68.33, 0.0, 70.0],
    "average_cost": [0.8214, 0.2417, 0.0, 1.3],
}
SCHEMA = {
    "id": pl.String,
    "agent_name": pl.String,
    "categories_completed": pl.Int64,
    "model": pl.String,
    "notes": pl.String,
    "release": pl.String,
    "open_weights": pl.Boolean,
    "runtime": pl.Float64,
    "alpha_score": pl.Float64,
    "beta_score": pl.Float64,
    "alpha_cost": pl.Float64,
    "beta_cost": pl.Float64,
    "average_score": pl.Float64,
    "average_cost": pl.Float64,
}


def instances() -> pl.DataFrame:
    rows = []
    for rid, group, resolved, costs in INSTANCES:
        for n, (res, cost) in enumerate(zip(resolved, costs, strict=True)):
            rows.append((rid, MODELS[rid], group, f"{group}-{n:02d}", res, cost))
    schema = {
        "id": pl.String,
        "model": pl.String,
        "group": pl.String,
        "instance_id": pl.String,
        "resolved": pl.Boolean,
        "cost": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").sort("id", "group", "instance_id")


def leaderboard() -> pl.DataFrame:
    return pl.DataFrame(LEADERBOARD, schema=SCHEMA)


def _parquet_bytes(df: pl.DataFrame, path: Path) -> bytes:
    tmp = path.with_name(f".{path.name}.build")
    df.write_parquet(tmp, compression="zstd", statistics=False)
    data = tmp.read_bytes()
    tmp.unlink()
    return data


def write(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, df in (("leaderboard.parquet", leaderboard()), ("instances.parquet", instances())):
        write_atomic(out / name, _parquet_bytes(df, out / name))
