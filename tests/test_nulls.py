"""The permutation null: the portable stream, and both contestants against exact enumeration."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import sqrt
from pathlib import Path

import blake3
import polars as pl
import pytest

from controls import select
from tests.conftest import IMPL_PARAMS, read_csv_rows, run_impl


def test_blake3_is_the_reference_hash() -> None:
    # the published BLAKE3 test vector for the empty input
    assert blake3.blake3(b"").hexdigest() == (
        "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    )


def test_stream_first_keys() -> None:
    # key = first 8 bytes, big-endian, of blake3("seed|column|draw|position"); the hex
    # prefixes are the first 16 hex digits of the digest of each literal string.
    assert select.key(20260725, "issue_resolution_score", 0, 0) == 0x0762277E5E2C23D7
    assert select.key(20260725, "issue_resolution_score", 0, 1) == 0x8EBAB1A86692EAB2
    assert select.key(20260725, "issue_resolution_score", 1, 0) == 0xC9909B5E99004A64
    # so in draw 0 position 0 sorts before position 1
    assert select.order(20260725, "issue_resolution_score", 0, 2) == [0, 1]


SEED, DRAWS = 11, 60
PREREG = f"""\
version: 1
name: tiny-null
bundle: {{leaderboard: lb.parquet, instances: inst.parquet, row_id: id,
         instance_key: [id, instance_id], group_by: g}}
rounding: half_even
nan_in_sources: as_null
columns:
  structural: [id]
  no_antecedent: []
  measured:
    s: {{recipe: rate, source: ok, group: x, scale: 100, policies: [A], tolerance: score}}
policies:
  A: {{recipe: rate, nulls: failure, description: "null is a failure"}}
tolerances:
  score: {{exact_decimals: 1, tiers: [0.05, 0.5]}}
seed: {SEED}
null_draws: {DRAWS}
chance: {{epsilon: 1.0e-12, threshold: 0.001}}
controls: {{}}
disclosure: {{auditor: the tests, relations: [], publication: not published}}
"""

# Rows r1, r2, r3 (positions 0, 1, 2) recompute to 25, 50, 50 (1, 2, 2 of 4 resolved) and
# publish 25, 50, 75. M[j][k]: row j's published value is reproduced by row k's value.
M = [[1, 0, 0], [0, 1, 1], [0, 0, 0]]
# Exact enumeration: the count of every one of the 3! dealings (position j gets row pi[j]).
COUNTS = {
    (0, 1, 2): 2,
    (0, 2, 1): 2,
    (1, 0, 2): 0,
    (1, 2, 0): 1,
    (2, 0, 1): 0,
    (2, 1, 0): 1,
}


def test_enumeration_table_is_consistent() -> None:
    for pi in itertools.permutations(range(3)):
        assert COUNTS[pi] == sum(M[j][pi[j]] for j in range(3))
    assert Fraction(sum(COUNTS.values()), 6) == 1  # the exact null mean


def _expected_line() -> dict[str, str]:
    counts = []
    for d in range(DRAWS):
        keys = [
            int.from_bytes(blake3.blake3(f"{SEED}|s|{d}|{i}".encode()).digest()[:8], "big")
            for i in range(3)
        ]
        pi = tuple(sorted(range(3), key=lambda i: (keys[i], i)))
        counts.append(COUNTS[pi])
    observed = 2
    ge = sum(c >= observed for c in counts)
    var = (Fraction(sum(c * c for c in counts)) - Fraction(sum(counts) ** 2, DRAWS)) / (DRAWS - 1)
    return {
        "column": "s",
        "observed": "2",
        "null_mean": f"{sum(counts) / DRAWS:.6f}",
        "null_sd": f"{sqrt(float(var)):.6f}",
        "null_max": str(max(counts)),
        "draws_ge_observed": str(ge),
        "draws": str(DRAWS),
        "p": f"{(1 + ge) / (1 + DRAWS):.6f}",
    }


def tiny_bundle(path: Path) -> Path:
    """The table above: rows r1, r2, r3 with 1, 2, 2 of 4 resolved, publishing 25, 50, 75."""
    path.mkdir(parents=True, exist_ok=True)
    pl.DataFrame({"id": ["r1", "r2", "r3"], "s": [25.0, 50.0, 75.0]}).write_parquet(
        path / "lb.parquet"
    )
    rows = [
        (r, f"i{n}", "x", n < k) for r, k in (("r1", 1), ("r2", 2), ("r3", 2)) for n in range(4)
    ]
    pl.DataFrame(rows, schema=["id", "instance_id", "g", "ok"], orient="row").write_parquet(
        path / "inst.parquet"
    )
    (path / "prereg.yaml").write_text(PREREG)
    return path


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_null_matches_the_stream_over_an_enumerated_table(
    impl: str, impl_envs, tmp_path: Path
) -> None:
    tiny_bundle(tmp_path)
    res = run_impl(impl, tmp_path / "prereg.yaml", tmp_path, tmp_path / "out")
    assert res.code == 0, res.stderr
    assert read_csv_rows(tmp_path / "out" / "nulls.csv") == [_expected_line()]
