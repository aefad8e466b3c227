"""The float-honest decimals of a value (contract, Agreement beyond chance), each
contestant's own way: the least d for which the value lies within
max(epsilon, 2**-52) * max(1, |x|) of a multiple of 10**-d.

impl_pandas decides it by numpy arithmetic on whole arrays, rint(x * 10**d) / 10**d
(impl_pandas/places.py), impl_pyarrow by Arrow's round to d digits
(impl_pyarrow/decimals.py), each settling a distance within a hair of the
tolerance exactly. Both are held here against a third way that shares nothing
with either: the decimal module, the double's exact value quantized to each d.
A few are also worked out by hand.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

import pytest

from tests.conftest import IMPL_PARAMS, ROOT, impl_python

EPSILON = "1e-12"
# value -> float-honest decimals at epsilon 1e-12, by hand: the coarsest grid with a
# point within 1e-12 * max(1, |x|) of the value
BY_HAND = {
    0.1: 1,
    1e-05: 5,  # 0.00001 is 1e-5 from 0, more than 1e-12
    1.5e-07: 8,  # 5e-8 from either multiple of 1e-7
    1.5e-12: 12,  # 1.5e-12 from 0; 5e-13 from 1e-12 or 2e-12
    1e-13: 0,  # within 1e-12 of 0
    5e-324: 0,
    2.5e20: 0,
    0.30000000000000004: 1,  # 4e-17 from 0.3: float noise, not precision
    0.8986309079999997: 9,  # a cost from the real bundle: 3e-16 from 0.898630908
    565.6352234999999: 7,  # 1e-13 from 565.6352235, within 5.7e-10
    3.012981019999998: 8,  # 2e-15 from 3.01298102
    123.456: 3,
    100.0: 0,
    -0.0: 0,
    -2.75: 2,
    2251799813685247.75: 0,  # within 2251.8 of 2251799813685248
    1.7976931348623157e308: 0,
}
# epsilon below 2**-52: the tolerance is 2**-52 * max(1, |x|) (about 2.2e-16 below 1)
TINY = "1e-30"
BY_HAND_TINY = {
    0.30000000000000004: 1,  # 4.4e-17 from 0.3, within 2.2e-16
    0.1: 1,
    0.8986309079999997: 16,  # 3e-16 from 0.898630908: beyond; its own 16 places
    1.5e-12: 13,  # 0 at 12 places is 1.5e-12 away; 1.5e-12 is a 13-place decimal
}


def independent(x: float, epsilon: str = EPSILON) -> int:
    """By the decimal module: the exact value of the double, quantized to each d."""
    with localcontext() as ctx:
        ctx.prec = 2000  # enough for every double's exact value
        q = Decimal(x)
        tol = max(Decimal(epsilon), Decimal(2) ** -52) * max(Decimal(1), abs(q))
        for d in range(17):
            nearest = q.quantize(Decimal(1).scaleb(-d), rounding=ROUND_HALF_EVEN)
            if abs(q - nearest) <= tol:
                return d
    raise AssertionError(f"{x!r}: no grid within 16 places")


def sample() -> list[float]:
    """Hand-picked values, then a seeded spread: short decimals, full-precision doubles,
    decimals with binary noise (sums of short decimals), tiny and huge ones, the powers
    of ten and the doubles either side of each, and values at the tolerance's edge."""
    rng = random.Random(20261203)
    values = list(BY_HAND) + list(BY_HAND_TINY)
    values += [rng.randrange(10**7) / 10 ** rng.randrange(10) for _ in range(3000)]
    values += [rng.random() * 10 ** rng.randrange(-30, 25) for _ in range(3000)]
    for _ in range(2000):  # a few short decimals summed: noise in the last places
        parts = [
            rng.randrange(10**7) / 10 ** rng.randrange(4, 10) for _ in range(rng.randrange(2, 40))
        ]
        values.append(sum(parts))
    for e in range(-40, 40):
        p = 10.0**e
        values += [p, math.nextafter(p, 0), math.nextafter(p, math.inf), 0.5 * p, 9.5 * p]
    for d in range(1, 13):  # a multiple of 10**-d plus about the tolerance, either side
        for k in (1, 7, 123):
            base = k / 10**d
            for off in (1e-12, -1e-12):
                v = base + off
                values += [v, math.nextafter(v, 0), math.nextafter(v, math.inf)]
    values += [-v for v in values[:500]]
    return values


SCRIPTS = {
    "pandas": (
        "import json, sys, numpy as np\n"
        "from fractions import Fraction\n"
        "from impl_pandas import places\n"
        "xs, eps = json.load(sys.stdin)\n"
        "print(json.dumps(places.honest(np.array(xs, dtype=np.float64), Fraction(eps)).tolist()))\n"
    ),
    "pyarrow": (
        "import json, sys, pyarrow as pa\n"
        "from fractions import Fraction\n"
        "from impl_pyarrow import decimals\n"
        "xs, eps = json.load(sys.stdin)\n"
        "print(json.dumps(decimals.honest(pa.array(xs, pa.float64()), Fraction(eps)).to_pylist()))\n"
    ),
}


def in_contestant(impl: str, script: str, *args: str, given: object = None) -> object:
    """Run a script in the contestant's own environment; what it printed, as JSON."""
    p = subprocess.run(
        [str(impl_python(impl)), "-c", script, *args],
        input=json.dumps(given),  # json writes repr: the very doubles come back
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def test_independent_method_matches_the_hand() -> None:
    assert {x: independent(x) for x in BY_HAND} == BY_HAND
    assert {x: independent(x, TINY) for x in BY_HAND_TINY} == BY_HAND_TINY


def test_never_more_than_the_shortest_form() -> None:
    """The rule's bound, on the independent method: a double lies within 2**-52 * max(1,
    |x|) of its shortest round-trip decimal, so it never reads finer than that."""
    for x in sample():
        shortest = max(0, -Decimal(repr(x)).normalize().as_tuple().exponent)
        assert independent(x, TINY) <= shortest, x


@pytest.mark.parametrize("epsilon", [EPSILON, TINY])
@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_honest_places_match_the_independent_method(
    impl: str, epsilon: str, impl_envs: None
) -> None:
    xs = sample()
    got = in_contestant(impl, SCRIPTS[impl], given=[xs, epsilon])
    expected = [independent(x, epsilon) for x in xs]
    wrong = [(x, g, w) for x, g, w in zip(xs, got, expected) if g != w]
    assert not wrong, wrong[:10]


# Per group, the most honest decimals of its values: how each contestant serves a
# mean's lattice. impl_pandas takes a floor from every 64th row and works out one by
# one only the values beyond their group's floor; impl_pyarrow reads every row of a
# chunked column. The groups are dealt at random, so most groups' most lies off
# the sampled rows; group 6 has no values (most 0).
GROUPS = 7
MOST_PER_GROUP = {
    "pandas": (
        "import json, sys, numpy as np\n"
        "from fractions import Fraction\n"
        "from impl_pandas import places\n"
        "xs, groups = json.load(sys.stdin)\n"
        "x = np.array(xs, dtype=np.float64)\n"
        "g = np.array(groups, dtype=np.intp)\n"
        "print(json.dumps(places.most_honest_per_run(x, g, 7, Fraction(1, 10**12)).tolist()))\n"
    ),
    "pyarrow": (
        "import json, sys, pyarrow as pa\n"
        "from fractions import Fraction\n"
        "from impl_pyarrow import decimals\n"
        "xs, groups = json.load(sys.stdin)\n"
        "x = pa.chunked_array([pa.array(xs[:1000], pa.float64()), pa.array(xs[1000:], pa.float64())])\n"
        "rows = decimals.per_row(x, Fraction(1, 10**12)).to_pylist()\n"
        "out = [0] * 7\n"
        "for d, g in zip(rows, groups):\n"
        "    out[g] = max(out[g], d)\n"
        "print(json.dumps(out))\n"
    ),
}


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_most_places_per_group_match_the_independent_method(impl: str, impl_envs: None) -> None:
    rng = random.Random(3)
    xs = [x for x in sample() if abs(x) < 1e6]  # groups of mixed precision
    rng.shuffle(xs)
    groups = [rng.randrange(GROUPS - 1) for _ in xs]
    got = in_contestant(impl, MOST_PER_GROUP[impl], given=[xs, groups])
    expected = [0] * GROUPS
    for x, g in zip(xs, groups, strict=True):
        expected[g] = max(expected[g], independent(x))
    assert got == expected


def test_pyarrow_places_of_null_nan_and_infinities(impl_envs: None) -> None:
    """A null stays null; NaN and the infinities count no places (0)."""
    script = (
        "import json, pyarrow as pa\n"
        "from fractions import Fraction\n"
        "from impl_pyarrow import decimals\n"
        "x = pa.array([None, float('nan'), float('inf'), -float('inf'), 2.50], pa.float64())\n"
        "print(json.dumps(decimals.honest(x, Fraction(1, 10**12)).to_pylist()))\n"
    )
    assert in_contestant("pyarrow", script) == [None, 0, 0, 0, 1]


READ_TWICE = {
    "pandas": "from impl_pandas.prereg import load_document as load\n",
    "pyarrow": "from impl_pyarrow.prereg.document import load\n",
}


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_a_prereg_read_again_is_its_new_text_and_a_copy(
    impl: str, impl_envs: None, tmp_path
) -> None:
    """A command reads its prereg once per bundle; a text read before is not parsed
    again. What the reader hands back must still be the file's text now, and a copy
    (a caller that changes it changes nothing for the next)."""
    path = tmp_path / "p.yaml"
    script = READ_TWICE[impl] + (
        "import json, pathlib, sys\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "p.write_text('seed: 1\\nname: a\\n')\n"
        "first = load(str(p)); first['seed'] = 99\n"
        "again = load(str(p))\n"
        "p.write_text('seed: 2\\nname: a\\n')\n"
        "changed = load(str(p))\n"
        "print(json.dumps([again['seed'], changed['seed']]))\n"
    )
    assert in_contestant(impl, script, str(path)) == [1, 2]
