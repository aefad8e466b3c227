"""Agreement beyond chance (docs/contract.md): hand-built bundles through both contestants.

Ten rows, one group. Every cost below 1, printed at four decimals, so each
cost cell's chance of landing within 1e-12 (relative to max(1, |P|) = 1) of
its published value is 2 * 1e-12 * 10**4 = 2e-8 (the instance costs carry
17 significant digits, read honestly at the chance test's own epsilon as 12
decimals, so their lattice, 10**-12 / 50, puts far fewer of its points on the
grid than that: 1e4 / 5e13 = 2e-10). The expected counts and the
p-values are worked out here by hand and with scipy's binomial, not by the
contestants' code.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
import yaml
from scipy.stats import binom

from audit.cells import record
from audit.cells.summary import CensusSummary
from audit.report.certificate import render
from tests.conftest import IMPL_PARAMS, read_csv_rows, run_impl

PREREG = """\
version: 1
name: chance
bundle: {leaderboard: lb.parquet, instances: inst.parquet, row_id: id,
         instance_key: [id, instance_id], group_by: g}
rounding: half_even
nan_in_sources: as_null
columns:
  structural: [id]
  no_antecedent: []
  measured:
    score: {recipe: rate, source: ok, group: x, scale: 100, policies: [A], tolerance: score}
    scaled: {recipe: mean, source: scaled, group: x, policies: [C], tolerance: cost}
    noisy: {recipe: mean, source: noisy, group: x, policies: [C], tolerance: cost}
    mixed: {recipe: mean, source: mixed, group: x, policies: [C], tolerance: cost}
policies:
  A: {recipe: rate, nulls: failure, description: "null is a failure"}
  C: {recipe: mean, nulls: exclude, description: "null is left out"}
tolerances:
  score: {exact_decimals: 1, tiers: [0.05, 0.5]}
  cost: {exact_decimals: 4, tiers: [0.005, 0.05]}
seed: 1
null_draws: 10
chance: {epsilon: 1.0e-12, threshold: 0.001}
controls: {}
disclosure: {auditor: the tests, relations: [], publication: not published}
"""

ROWS = [f"r{i}" for i in range(10)]
N_COSTS = 50  # cost instances per row
N_RATE = 500  # rate instances per row: 100 * k / 500 = 0.2 k, always on the 1-decimal grid
EPS = Fraction(1, 10**12)


def _mean(values: list[float]) -> Fraction:
    """The contract's recomputed mean, as the exact value of the double."""
    import math

    return Fraction(math.fsum(values) / len(values))


def _scaled_to(target: float, rng: random.Random) -> list[float]:
    """Real-valued costs multiplied so that their mean is the published value."""
    raw = [rng.uniform(0.01, 1.0) for _ in range(N_COSTS)]
    factor = target / (sum(raw) / N_COSTS)
    return [x * factor for x in raw]


def make_bundle(root: Path) -> Path:
    rng = random.Random(20260725)
    published: dict[str, list[float]] = {"score": [], "scaled": [], "noisy": [], "mixed": []}
    sources: dict[str, list[list[float]]] = {"scaled": [], "noisy": [], "mixed": []}
    resolved: list[int] = []
    for i in range(len(ROWS)):
        k = 100 + 37 * i
        resolved.append(k)
        published["score"].append(round(100 * k / N_RATE, 1))
        target = round(rng.uniform(0.1, 0.9), 4)
        published["scaled"].append(target)
        sources["scaled"].append(_scaled_to(target, rng))
        noisy = [rng.uniform(0.01, 1.0) for _ in range(N_COSTS)]
        sources["noisy"].append(noisy)
        mean = float(_mean(noisy))
        # even rows reproduce at tier 0 (rounded), odd rows at tier 1 (0.003 off)
        published["noisy"].append(round(mean if i % 2 == 0 else mean + 0.003, 4))
        if i < 5:  # the first five rows scaled, the others independent
            target = round(rng.uniform(0.1, 0.9), 4)
            sources["mixed"].append(_scaled_to(target, rng))
            published["mixed"].append(target)
        else:
            values = [rng.uniform(0.01, 1.0) for _ in range(N_COSTS)]
            sources["mixed"].append(values)
            published["mixed"].append(round(float(_mean(values)), 4))
    # the construction holds: scaled means land within epsilon, independent ones do not
    for name in ("scaled", "noisy", "mixed"):
        for i, values in enumerate(sources[name]):
            exact = abs(_mean(values) - Fraction(repr(published[name][i]))) <= EPS
            assert exact == (name == "scaled" or (name == "mixed" and i < 5)), (name, i)
    pl.DataFrame({"id": ROWS, **published}).write_parquet(root / "lb.parquet")
    rows = []
    for i, rid in enumerate(ROWS):
        for n in range(N_RATE):
            costs = [
                sources[c][i][n] if n < N_COSTS else None for c in ("scaled", "noisy", "mixed")
            ]
            rows.append((rid, f"i{n:03d}", "x", n < resolved[i], *costs))
    schema = {"id": pl.String, "instance_id": pl.String, "g": pl.String, "ok": pl.Boolean}
    schema |= {c: pl.Float64 for c in ("scaled", "noisy", "mixed")}
    pl.DataFrame(rows, schema=schema, orient="row").write_parquet(root / "inst.parquet")
    prereg = root / "prereg.yaml"
    prereg.write_text(PREREG, encoding="utf-8")
    return prereg


def _chance(out: Path) -> dict[str, dict[str, str]]:
    return {r["column"]: r for r in read_csv_rows(out / "chance.csv")}


@pytest.fixture(scope="module")
def outputs(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("chance")
    prereg = make_bundle(root)
    outs = {}
    for impl in ("pandas", "pyarrow"):
        res = run_impl(impl, prereg, root, root / impl)
        assert res.code == 0, res.stderr
        outs[impl] = root / impl
    return outs


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_scaled_costs_are_flagged(impl: str, outputs: dict[str, Path]) -> None:
    row = _chance(outputs[impl])["scaled"]
    # 10 cells, each 2e-8 by chance: 10 exact, 2e-7 expected, p = (2e-8)**10
    assert (row["candidates"], row["certain"], row["tested"], row["exact_beyond"]) == (
        "10",
        "0",
        "10",
        "10",
    )
    assert float(row["expected"]) == pytest.approx(2e-7, rel=1e-6)
    assert float(row["p_value"]) == pytest.approx(binom.sf(9, 10, 2e-8), rel=1e-6)
    assert row["constructed"] == "yes"


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_rate_over_500_is_exact_by_arithmetic(impl: str, outputs: dict[str, Path]) -> None:
    # 100 k / 500 = 0.2 k: every lattice point is on the 1-decimal grid, chance 1
    row = _chance(outputs[impl])["score"]
    assert (row["certain"], row["exact_certain"], row["tested"], row["exact_beyond"]) == (
        "10",
        "10",
        "0",
        "0",
    )
    assert (row["p_value"], row["constructed"]) == ("1.000000e+00", "no")


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_independent_noisy_means_are_not_flagged(impl: str, outputs: dict[str, Path]) -> None:
    census = {
        r["row_id"]: r
        for r in read_csv_rows(outputs[impl] / "census.csv")
        if r["column"] == "noisy"
    }
    tiers = [census[r]["best_tier"] for r in ROWS]
    assert tiers == ["0", "1"] * 5  # they reproduce, at tiers 0 and 1
    row = _chance(outputs[impl])["noisy"]
    assert (row["tested"], row["exact_beyond"], row["p_value"], row["constructed"]) == (
        "10",
        "0",
        "1.000000e+00",
        "no",
    )


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_column_mixing_both_is_flagged(impl: str, outputs: dict[str, Path]) -> None:
    row = _chance(outputs[impl])["mixed"]
    assert (row["tested"], row["exact_beyond"], row["constructed"]) == ("10", "5", "yes")
    # P(Bin(10, 2e-8) >= 5) = 252 (2e-8)**5 to six digits
    assert float(row["p_value"]) == pytest.approx(binom.sf(4, 10, 2e-8), rel=1e-6)


def test_the_contestants_write_the_same_chance_file(outputs: dict[str, Path]) -> None:
    assert (outputs["pandas"] / "chance.csv").read_bytes() == (
        outputs["pyarrow"] / "chance.csv"
    ).read_bytes()


def test_the_permutation_null_is_unchanged_beside_it(outputs: dict[str, Path]) -> None:
    # the reproduce table (the null's input) does not depend on the chance keys
    for impl, out in outputs.items():
        table = {
            (r["column"], r["row_id"]): r["reproduced_by"]
            for r in read_csv_rows(out / "reproduce.csv")
        }
        assert table[("scaled", "r0")][0] == "1", impl


def test_the_certificate_never_certifies_a_constructed_column(tmp_path: Path) -> None:
    res = tmp_path
    (res / "lock").mkdir()
    # 10 rows x 2 measured columns, every cell reproduced (the two columns below)
    summary = CensusSummary(
        arm_prereg="chance",
        prereg_blake3="0" * 64,
        rows=10,
        columns=2,
        cells=20,
        classes={
            "reproduced": 20,
            "divergent": 0,
            "no_data": 0,
            "structural": 0,
            "no_antecedent": 0,
        },
        with_antecedent=20,
        instance_rows=10,
        chance={"epsilon": 1e-12, "threshold": 0.001},
        constructed=["scaled"],
    )
    (res / "census.json").write_text(summary.to_json())
    (res / "lock" / "lock.json").write_text(
        json.dumps(
            {  # as the lock writes it (audit/lock/cells.py)
                "format": "secondseat-lock-v1",
                "prereg": {"blake3": "0" * 64, "name": "chance"},
                "bundle": {
                    "instances": {
                        "file": "instances.parquet",
                        "content_digest": "0" * 64,
                        "rows": 10,
                        "columns": 3,
                    }
                },
            }
        )
    )
    (res / "lock" / "files.json").write_text("{}")
    head = "column,kind,reproduced,divergent,no_data,tier_0,chance_tested,chance_exact,chance_expected,chance_p,constructed"
    (res / "census_columns.csv").write_text(
        f"{head}\nscaled,measured,10,0,0,10,10,10,2.000000e-07,1.024000e-77,yes\n"
        "noisy,measured,10,0,0,5,10,0,2.000000e-07,1.000000e+00,no\n"
    )
    (res / "census_cells.csv").write_text("row_id,column,class,best_tier,policies,min_abs_diff\n")
    # the prereg above, reduced to the two columns of this census, as its record
    doc = yaml.safe_load(PREREG)
    doc["columns"]["measured"] = {
        name: doc["columns"]["measured"][name] for name in ("scaled", "noisy")
    }
    doc["tolerances"] = {"cost": {"exact_decimals": 4, "tiers": [0.005]}}
    rec = record.parse(doc, "prereg.yaml")
    text = render(res, rec, "f" * 64)
    certified = text.split("## Columns that reproduce")[1].split("##")[0]
    assert "| noisy |" in certified and "| scaled |" not in certified
    assert "## Columns not certified: agreement too exact to be evidence" in text
    assert "scaled is more exact than independent data would give: 10 of 10 cells" in text


@pytest.mark.parametrize("impl", IMPL_PARAMS)
@pytest.mark.parametrize(
    "edit",
    [
        ("chance: {epsilon: 1.0e-12, threshold: 0.001}\n", ""),  # no default
        ("threshold: 0.001}", "threshold: 1}"),
        ("threshold: 0.001}", "threshold: 0.001, draws: 3}"),
        ("epsilon: 1.0e-12", "epsilon: -1.0e-12"),
    ],
    ids=["missing", "threshold-1", "unknown-key", "negative-epsilon"],
)
def test_both_contestants_refuse_a_bad_chance_block(
    impl: str, edit: tuple[str, str], impl_envs, tmp_path: Path
) -> None:
    prereg = make_bundle(tmp_path)
    prereg.write_text(PREREG.replace(*edit), encoding="utf-8")
    res = run_impl(impl, prereg, tmp_path, tmp_path / "out")
    assert res.code == 2 and res.stderr.startswith("error[bad_prereg]:"), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
