"""The decimals a value prints (contract, Agreement beyond chance), each contestant's own way.

impl_pandas decides them by arithmetic on whole arrays (impl_pandas/places.py),
impl_pyarrow from Arrow's shortest text in Arrow compute (impl_pyarrow/decimals.py).
Both are held here against a third way that shares nothing with either: Python's
own shortest repr read as a `decimal.Decimal`, whose normalised exponent gives the
places (repr(100.0) is '100.0', normalised 1E+2: 0 places). A few are also
worked out by hand.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
from decimal import Decimal

import pytest

from tests.conftest import IMPL_PARAMS, ROOT, impl_python

# value -> places, by hand from the value's shortest form
BY_HAND = {
    0.1: 1,  # 0.1
    1e-05: 5,  # 0.00001
    1.5e-07: 8,  # 0.00000015
    2.5e20: 0,  # 250000000000000000000
    0.30000000000000004: 17,
    0.8986309079999997: 16,  # a cost from the real bundle
    123.456: 3,
    100.0: 0,
    -0.0: 0,
    -2.75: 2,
    4503599627370497.0: 0,  # above 2**52: every double is whole
    2251799813685247.75: 1,  # just below 2**51: prints 2251799813685247.8
    1e22: 0,
    1e-22: 22,
    5e-324: 324,  # the least subnormal, 5 at the 324th place
    1.7976931348623157e308: 0,
}


def independent(x: float) -> int:
    """Places of Python's shortest repr, read by the decimal module."""
    return max(0, -Decimal(repr(x)).normalize().as_tuple().exponent)


def sample() -> list[float]:
    """Hand-picked values, then a seeded spread: short decimals, full-precision doubles,
    tiny and huge ones, the powers of ten and the doubles either side of each."""
    rng = random.Random(20261203)
    values = list(BY_HAND)
    values += [rng.randrange(10**7) / 10 ** rng.randrange(10) for _ in range(4000)]
    values += [rng.random() * 10 ** rng.randrange(-30, 25) for _ in range(4000)]
    for e in range(-40, 40):
        p = 10.0**e
        values += [p, math.nextafter(p, 0), math.nextafter(p, math.inf), 0.5 * p, 9.5 * p]
    values += [-v for v in values[:500]]
    return values


SCRIPTS = {
    "pandas": (
        "import json, sys, numpy as np\n"
        "from impl_pandas import places\n"
        "xs, lists = json.load(sys.stdin)\n"
        "out = [places.printed(np.array(xs, dtype=np.float64)).tolist()]\n"
        "out += [[int(places.printed(np.array(v, dtype=np.float64)).max(initial=0))"
        " for v in lists]]\n"
        "print(json.dumps(out))\n"
    ),
    "pyarrow": (
        "import json, sys, pyarrow as pa\n"
        "from impl_pyarrow import decimals\n"
        "xs, lists = json.load(sys.stdin)\n"
        "out = [decimals.printed(pa.array(xs, pa.float64())).to_pylist()]\n"
        "out += [decimals.most_of_each(lists)]\n"
        "print(json.dumps(out))\n"
    ),
}


def few_at_a_time(xs: list[float]) -> list[list[float]]:
    """Short lists of values (as a mean of columns' parts come, cell by cell), empty ones too."""
    out, start = [], 0
    for size in [0, 1, 2, 3, 5, 8] * 40:
        out.append(xs[start : start + size])
        start += size
    return out


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


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_places_match_the_independent_method(impl: str, impl_envs: None) -> None:
    xs = sample()
    lists = few_at_a_time(xs)
    whole, most = in_contestant(impl, SCRIPTS[impl], given=[xs, lists])
    expected = [independent(x) for x in xs]
    wrong = [(x, got, want) for x, got, want in zip(xs, whole, expected) if got != want]
    assert not wrong, wrong[:10]
    # a few values at a time: the most of each list, 0 for an empty one
    assert most == [max((independent(x) for x in v), default=0) for v in lists]


# Per group, the most places of its values: how each contestant serves a mean's
# lattice. impl_pandas takes a floor from every 64th row and works out one by one
# only the values beyond their group's floor; impl_pyarrow prints every row of a
# chunked column. The groups are dealt at random, so most groups' most lies off
# the sampled rows; group 6 has no values (most 0).
GROUPS = 7
MOST_PER_GROUP = {
    "pandas": (
        "import json, sys, numpy as np\n"
        "from impl_pandas import places\n"
        "xs, groups = json.load(sys.stdin)\n"
        "x = np.array(xs, dtype=np.float64)\n"
        "print(json.dumps(places.most_per_run(x, np.array(groups, dtype=np.intp), 7).tolist()))\n"
    ),
    "pyarrow": (
        "import json, sys, pyarrow as pa, pyarrow.compute as pc\n"
        "from impl_pyarrow import decimals\n"
        "xs, groups = json.load(sys.stdin)\n"
        "x = pa.chunked_array([pa.array(xs[:1000], pa.float64()), pa.array(xs[1000:], pa.float64())])\n"
        "rows = decimals.per_row(x).to_pylist()\n"
        "out = [0] * 7\n"
        "for d, g in zip(rows, groups):\n"
        "    out[g] = max(out[g], d)\n"
        "print(json.dumps(out))\n"
    ),
}


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_most_places_per_group_match_the_independent_method(impl: str, impl_envs: None) -> None:
    rng = random.Random(3)
    xs = sample()
    rng.shuffle(xs)
    groups = [rng.randrange(GROUPS - 1) for _ in xs]
    got = in_contestant(impl, MOST_PER_GROUP[impl], given=[xs, groups])
    expected = [0] * GROUPS
    for x, g in zip(xs, groups, strict=True):
        expected[g] = max(expected[g], independent(x))
    assert got == expected
    assert len(set(expected[: GROUPS - 1])) > 1  # groups differ: no one floor fits all


def test_pyarrow_places_of_null_nan_and_infinities(impl_envs: None) -> None:
    """A null stays null; NaN and the infinities print no digits after a point (0)."""
    script = (
        "import json, pyarrow as pa\n"
        "from impl_pyarrow import decimals\n"
        "x = pa.array([None, float('nan'), float('inf'), -float('inf'), 2.50], pa.float64())\n"
        "print(json.dumps(decimals.printed(x).to_pylist()))\n"
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
