"""A synthetic bundle of any size, shaped like the OpenHands index, with planted divergences.

``python -m audit generate --rows N --models M --seed S --out DIR`` writes
``DIR/test.parquet`` (the leaderboard: M rows x the 38 columns of the OpenHands
index), ``DIR/instances.parquet`` (about N rows: model x benchmark x instance,
the same nine columns; ``resolved`` and ``cost`` nullable) and
``DIR/planted.csv`` (the measured cells published wrong on purpose). The
method that audits it is ``prereg/synthetic.yaml``.

Everything follows from the seed: random numbers are splitmix64 of
(stream offset + row position), computed by polars on unsigned 64-bit integers
(wrapping), so the files are the same on every machine and polars version.

How the published values are made. The generator recomputes every measured
cell exactly as docs/contract.md does (a rate is one double division, a mean
``math.fsum`` then one division), picks for each model the policy its
publisher used (A or B for scores, C or D for costs), and publishes the value
under that policy rounded as the OpenHands index rounds (scores 1 decimal,
costs 2, averages 2, averages taken over the recomputed category values), so
every cell that is not planted is reproduced under that policy (at tier 0 or
1). A model may lack a whole category (published null: no data). A planted
cell is moved away from its recomputed value under every policy, beyond the
widest tier (scores by 2 to 5 points, costs by 0.1 to 1.0 above the largest,
the model's name suffixed), so it is divergent and nothing else is.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import polars as pl

from audit.files import write_atomic

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

# benchmark -> (category label, column prefix, weight: instances per model in OpenHands)
BENCHMARKS = {
    "swe-bench": ("Issue Resolution", "issue_resolution", 500),
    "swe-bench-multimodal": ("Frontend", "frontend", 88),
    "commit0": ("Greenfield", "greenfield", 16),
    "swt-bench": ("Testing", "testing", 429),
    "gaia": ("Information Gathering", "information_gathering", 163),
}
PREFIXES = [p for _, p, _ in BENCHMARKS.values()]
BENCHMARKS_BY_PREFIX = {prefix: b for b, (_, prefix, _) in BENCHMARKS.items()}
# categories a model may lack entirely (published null; no instance rows)
MAY_LACK = ["frontend", "greenfield"]
NULL_RESOLVED = 0.012  # OpenHands: 475 of 40,643
NULL_COST = 0.011  # OpenHands: 436 of 40,643
PLANTED_SHARE = 0.02  # of the measured cells that have data

# random streams (one per quantity)
S_SKILL, S_COSTSCALE, S_POLICY, S_LACK, S_LACKWHICH = 1, 2, 3, 4, 5
S_RESOLVED, S_RESNULL, S_COST, S_COSTNULL, S_PLANT, S_MOVE, S_META = 10, 11, 12, 13, 20, 21, 30

LEADERBOARD_FILE = "test.parquet"
INSTANCES_FILE = "instances.parquet"
PLANTED_FILE = "planted.csv"


def splitmix64(x: int) -> int:
    """The splitmix64 output function of x (Python integers, for the small tables)."""
    z = (x + GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * MIX1) & MASK
    z = ((z ^ (z >> 27)) * MIX2) & MASK
    return z ^ (z >> 31)


def offset(seed: int, stream: int) -> int:
    """Where a stream starts: two rounds of splitmix64 over (seed, stream)."""
    return splitmix64(splitmix64(seed & MASK) ^ stream)


def unit(seed: int, stream: int, i: int) -> float:
    """A double in [0, 1) from position i of a stream."""
    return (splitmix64((offset(seed, stream) + i) & MASK) >> 11) * 2.0**-53


def unit_expr(seed: int, stream: int, index: pl.Expr) -> pl.Expr:
    """unit() for every value of an index column, in polars (UInt64 arithmetic wraps)."""
    u64 = pl.UInt64
    x = index.cast(u64) + pl.lit(offset(seed, stream), u64) + pl.lit(GOLDEN, u64)
    z = x.xor(x // (1 << 30)) * pl.lit(MIX1, u64)
    z = z.xor(z // (1 << 27)) * pl.lit(MIX2, u64)
    z = z.xor(z // (1 << 31))
    return (z // (1 << 11)).cast(pl.Float64) * 2.0**-53


def per_benchmark(rows: int, models: int) -> dict[str, int]:
    """Instances per model in each benchmark: about rows / models in OpenHands' proportions."""
    per_model = max(len(BENCHMARKS), rows // max(models, 1))
    total = sum(w for _, _, w in BENCHMARKS.values())
    sizes = {b: max(1, round(per_model * w / total)) for b, (_, _, w) in BENCHMARKS.items()}
    sizes["swe-bench"] += per_model - sum(sizes.values())
    return sizes


def model_table(models: int, seed: int) -> list[dict]:
    """Per model: identity, skill, cost scale, the publisher's policies, a lacking category."""
    out = []
    for m in range(models):
        lacks = None
        if models >= 5 and unit(seed, S_LACK, m) < 0.1:
            lacks = MAY_LACK[int(unit(seed, S_LACKWHICH, m) * len(MAY_LACK))]
        out.append(
            {
                "m": m,
                "id": f"Synthetic/model-{m:04d}",
                "language_model": f"model-{m:04d}",
                "skill": 0.25 + 0.6 * unit(seed, S_SKILL, m),
                "cost_scale": 0.05 + 2.0 * unit(seed, S_COSTSCALE, m),
                "score_policy": "A" if unit(seed, S_POLICY, 2 * m) < 0.5 else "B",
                "cost_policy": "C" if unit(seed, S_POLICY, 2 * m + 1) < 0.5 else "D",
                "lacks": lacks,
            }
        )
    return out


def instances(rows: int, models: int, seed: int) -> pl.DataFrame:
    """The instance table, sorted by (id, benchmark, instance_id) as OpenHands ships it."""
    table = model_table(models, seed)
    sizes = per_benchmark(rows, models)
    factor = {p: 0.6 + 0.1 * k for k, p in enumerate(PREFIXES)}
    bench = pl.concat(
        [
            pl.DataFrame(
                {
                    "benchmark": [b] * n,
                    "category": [cat] * n,
                    "instance_id": [f"{b}__task-{j:06d}" for j in range(n)],
                    "factor": [factor[prefix]] * n,
                }
            )
            for b, (cat, prefix, _) in BENCHMARKS.items()
            for n in [sizes[b]]
        ]
    )
    mods = pl.DataFrame(
        {
            "id": [t["id"] for t in table],
            "language_model": [t["language_model"] for t in table],
            "skill": [t["skill"] for t in table],
            "cost_scale": [t["cost_scale"] for t in table],
            "lacks": [BENCHMARKS_BY_PREFIX.get(t["lacks"] or "", "") for t in table],
        }
    )
    df = (
        mods.lazy()
        .join(bench.lazy(), how="cross")
        .filter(pl.col("benchmark") != pl.col("lacks"))
        .sort("id", "benchmark", "instance_id")
        .with_row_index("i")
    )
    i = pl.col("i")
    p = (pl.col("skill") * pl.col("factor")).clip(0.02, 0.98)
    resolved = pl.when(unit_expr(seed, S_RESNULL, i) < NULL_RESOLVED).then(None)
    resolved = resolved.otherwise(unit_expr(seed, S_RESOLVED, i) < p)
    cost = (pl.col("cost_scale") * -((1.0 - unit_expr(seed, S_COST, i)).log())).round(6)
    cost = pl.when(unit_expr(seed, S_COSTNULL, i) < NULL_COST).then(None).otherwise(cost)
    return df.select(
        "id",
        pl.lit("SynthAgent").alias("agent_name"),
        pl.lit("SynthAgent").alias("agent_type"),
        "language_model",
        "benchmark",
        "category",
        "instance_id",
        resolved.alias("resolved"),
        cost.alias("cost"),
    ).collect()


def recompute(inst: pl.DataFrame) -> dict[tuple[str, str], dict[str, float | None]]:
    """(id, column prefix) -> policy -> the contract's value (None: no data), every group.

    Rates: (100 k) / n as one double division. Means: math.fsum of the values, then
    one division. The table is sorted by (id, benchmark), so each group is one run."""
    prefix_of = {b: p for b, (_, p, _) in BENCHMARKS.items()}
    runs = (
        inst.with_row_index("i")
        .group_by("id", "benchmark", maintain_order=True)
        .agg(
            pl.col("i").first().alias("start"),
            pl.len().alias("n"),
            pl.col("resolved").sum().alias("k"),
            pl.col("resolved").count().alias("n_res"),
        )
    )
    cost = inst.get_column("cost")
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for rid, b, start, n, k, n_res in runs.iter_rows():
        values = cost.slice(start, n).drop_nulls().to_list()
        total = math.fsum(values)
        out[(rid, prefix_of[b])] = {
            "A": (100 * k) / n if n else None,
            "B": (100 * k) / n_res if n_res else None,
            "C": total / len(values) if values else None,
            "D": total / n if n else None,
        }
    return out


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return math.fsum(present) / len(present) if present else None


def _either(r: dict[str, float | None], policy: str, pair: str) -> float:
    """The value under the publisher's policy, or under the other one if that has no data."""
    value = r[policy]
    if value is None:
        value = r[pair.replace(policy, "")]
    assert value is not None
    return value


def _away(values: list[float | None], by: float, digits: int, upper: float | None) -> float:
    """A published value beyond `by` from every recomputed one: above the largest, or
    below the smallest when above would pass `upper`."""
    present = [v for v in values if v is not None]
    up = round(max(present) + by, digits)
    if upper is None or up <= upper:
        return up
    return round(min(present) - by, digits)


def leaderboard(
    inst: pl.DataFrame, models: int, seed: int
) -> tuple[pl.DataFrame, list[dict[str, str]]]:
    """The published table (sorted by average_score, highest first) and the planted cells."""
    table = model_table(models, seed)
    rec = recompute(inst)
    measured = [f"{p}_{what}" for p in PREFIXES for what in ("score", "cost")]
    measured += ["average_score", "average_cost", "language_model"]
    # every measured cell with data, in a fixed order; a seeded share of them is planted
    candidates = [
        (t["id"], c)
        for t in table
        for c in measured
        if not (t["lacks"] and c.startswith(t["lacks"] + "_"))
    ]
    keyed = sorted(range(len(candidates)), key=lambda j: (unit(seed, S_PLANT, j), j))
    count = max(3, round(PLANTED_SHARE * len(candidates)))
    planted = {candidates[j] for j in keyed[:count]}

    rows: list[dict] = []
    plants: list[dict[str, str]] = []
    for t in table:
        rid, sp, cp, m = t["id"], t["score_policy"], t["cost_policy"], t["m"]
        move = unit(seed, S_MOVE, m)
        row: dict = {
            "id": rid,
            "agent_name": "SynthAgent",
            "agent_type": "SynthAgent",
            "language_model": t["language_model"],
            "sdk_version": f"v1.{int(unit(seed, S_META, 4 * m) * 20)}.0",
            "openness": "open_weights" if unit(seed, S_META, 4 * m + 1) < 0.3 else "closed",
            "country": ["us", "cn", "fr", "de"][int(unit(seed, S_META, 4 * m + 2) * 4)],
            "supports_vision": unit(seed, S_META, 4 * m + 3) < 0.5,
            "release_date": f"2026-{1 + m % 12:02d}-{1 + m % 28:02d}",
        }
        scores = {"A": [], "B": []}
        costs = {"C": [], "D": []}
        completed = 0
        for p in PREFIXES:
            lacking = t["lacks"] == p
            r = rec.get((rid, p), {"A": None, "B": None, "C": None, "D": None})
            for pol, values in (*scores.items(), *costs.items()):
                values.append(r[pol])
            completed += 0 if lacking else 1
            score = None if lacking else round(_either(r, sp, "AB"), 1)
            cost = None if lacking else round(_either(r, cp, "CD"), 2)
            if (rid, f"{p}_score") in planted:
                score = _away([r["A"], r["B"]], 2.0 + 3.0 * move, 1, 100.0)
            if (rid, f"{p}_cost") in planted:
                cost = _away([r["C"], r["D"]], 0.1 + 0.9 * move, 2, None)
            row[f"{p}_score"] = score
            row[f"{p}_cost"] = cost
            row[f"{p}_runtime"] = None if lacking else round(100 + 400 * unit(seed, S_META, m), 1)
            url = f"https://example.org/synthetic/{t['language_model']}/{p}"
            row[f"{p}_logs_url"] = None if lacking else url + "/logs.tar.gz"
            row[f"{p}_visualization_url"] = None if lacking else url + "/view"
        avg = {pol: _mean(v) for pol, v in {**scores, **costs}.items()}
        row["average_score"] = round(avg[sp], 2)  # type: ignore[arg-type]
        row["average_cost"] = round(avg[cp], 2)  # type: ignore[arg-type]
        if (rid, "average_score") in planted:
            row["average_score"] = _away([avg["A"], avg["B"]], 2.0 + 3.0 * move, 2, 100.0)
        if (rid, "average_cost") in planted:
            row["average_cost"] = _away([avg["C"], avg["D"]], 0.1 + 0.9 * move, 2, None)
        if (rid, "language_model") in planted:
            row["language_model"] = t["language_model"] + "-preview"
        runtimes = [row[f"{p}_runtime"] for p in PREFIXES if row[f"{p}_runtime"] is not None]
        row["average_runtime"] = round(math.fsum(runtimes) / len(runtimes), 4)
        row["categories_completed"] = completed
        rows.append(row)
        for c in measured:
            if (rid, c) in planted:
                plants.append({"row_id": rid, "column": c, "published": str(row[c])})
    plants.sort(key=lambda r: (r["row_id"], r["column"]))
    return pl.DataFrame(rows, schema=SCHEMA).sort(
        ["average_score", "id"], descending=[True, False]
    ), plants


SCHEMA: dict[str, type[pl.DataType]] = {
    "id": pl.String,
    "agent_name": pl.String,
    "agent_type": pl.String,
    "language_model": pl.String,
    "sdk_version": pl.String,
    "openness": pl.String,
    "country": pl.String,
    "supports_vision": pl.Boolean,
    "release_date": pl.String,
    "average_score": pl.Float64,
    "average_cost": pl.Float64,
    "average_runtime": pl.Float64,
    "categories_completed": pl.Int64,
    **{
        f"{p}_{what}": t
        for p in PREFIXES
        for what, t in (
            ("score", pl.Float64),
            ("cost", pl.Float64),
            ("runtime", pl.Float64),
            ("logs_url", pl.String),
            ("visualization_url", pl.String),
        )
    },
}


def _write_parquet(df: pl.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.build")
    df.write_parquet(tmp, compression="zstd", statistics=False)
    tmp.replace(path)


def generate(rows: int, models: int, seed: int, out_dir: str) -> dict[str, int]:
    """Write the bundle and planted.csv; return its shape."""
    if models < 1 or rows < 1:
        raise ValueError("rows and models must be positive")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    inst = instances(rows, models, seed)
    lb, plants = leaderboard(inst, models, seed)
    _write_parquet(inst, out / INSTANCES_FILE)
    _write_parquet(lb, out / LEADERBOARD_FILE)
    buf = io.StringIO()
    w = csv.DictWriter(buf, ["row_id", "column", "published"], lineterminator="\n")
    w.writeheader()
    w.writerows(plants)
    write_atomic(out / PLANTED_FILE, buf.getvalue())
    return {"instance_rows": inst.height, "models": lb.height, "planted": len(plants)}
