"""The p-value of "Agreement beyond chance" (contract): P(at least x of n independent
cells land on their published value), exactly, each contestant its own way.

impl_pandas convolves the cells' polynomials over one common denominator
(impl_pandas/chance.py, count_tail); impl_pyarrow keeps the probabilities of fewer
than x landed, cell by cell (impl_pyarrow/chance.py, upper_tail). Both are held
against two methods that share nothing with either: every one of the 2**n ways the
cells can land, summed in fractions (small n), and, for equal chances, the
binomial tail written out with math.comb; scipy's binomial survival function
checks that one in floating point. A few tails are worked out by hand.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from scipy.stats import binom

from tests.conftest import IMPL_PARAMS
from tests.test_printed_places import in_contestant

# (chances, x) -> P(at least x land), by hand
BY_HAND = [
    (([Fraction(1, 2)] * 2, 1), Fraction(3, 4)),  # 1 - (1/2)^2
    (([Fraction(1, 2)] * 2, 2), Fraction(1, 4)),
    (([Fraction(1, 3), Fraction(1, 4)], 1), Fraction(1, 2)),  # 1 - (2/3)(3/4)
    (([Fraction(1, 3), Fraction(1, 4)], 2), Fraction(1, 12)),
    (([Fraction(1, 10)] * 3, 3), Fraction(1, 1000)),
    (([], 1), Fraction(0)),  # nothing can land
    (([Fraction(1, 7)], 0), Fraction(1)),  # at least none: certain
    (([Fraction(1, 7)], 2), Fraction(0)),  # more than there are cells
]


def every_way(chances: list[Fraction], x: int) -> Fraction:
    """The sum over all 2**n outcomes with at least x landed, in fractions."""
    total = Fraction(0)
    for landed in itertools.product((False, True), repeat=len(chances)):
        if sum(landed) >= x:
            term = Fraction(1)
            for p, hit in zip(chances, landed):
                term *= p if hit else 1 - p
            total += term
    return total


def binomial_tail(n: int, p: Fraction, x: int) -> Fraction:
    return sum(
        (math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(max(x, 0), n + 1)),
        Fraction(0),
    )


def cases() -> list[tuple[list[Fraction], int]]:
    """By hand, then seeded: distinct chances on decimal and lattice denominators, and
    long runs of one chance (the binomial), with x from 0 to beyond n."""
    rng = random.Random(20261203)
    out = [c for c, _ in BY_HAND]
    for _ in range(40):
        n = rng.randrange(1, 11)
        chances = [
            Fraction(rng.randrange(1, 10**6), 10**6 * rng.choice([1, 3, 7, 64])) for _ in range(n)
        ]
        out.append((chances, rng.randrange(0, n + 2)))
    for n, p in [(34, Fraction(2, 10**12)), (30, Fraction(1, 3)), (25, Fraction(999, 1000))]:
        for x in (0, 1, 2, 7, n):
            out.append(([p] * n, x))
    return out


SCRIPTS = {
    "pandas": (
        "import json, sys\n"
        "from fractions import Fraction\n"
        "from impl_pandas.chance import count_tail\n"
        "out = [str(count_tail([Fraction(c) for c in cs], x)) for cs, x in json.load(sys.stdin)]\n"
        "print(json.dumps(out))\n"
    ),
    "pyarrow": (
        "import json, sys\n"
        "from fractions import Fraction\n"
        "from impl_pyarrow.chance import upper_tail\n"
        "out = [str(upper_tail([Fraction(c) for c in cs], x)) for cs, x in json.load(sys.stdin)]\n"
        "print(json.dumps(out))\n"
    ),
}


def test_the_independent_methods_match_the_hand() -> None:
    for (chances, x), want in BY_HAND:
        assert every_way(chances, x) == want
    assert binomial_tail(2, Fraction(1, 2), 1) == Fraction(3, 4)
    assert binomial_tail(3, Fraction(1, 10), 3) == Fraction(1, 1000)


def test_the_binomial_matches_scipy() -> None:
    for n, p, x in [
        (34, Fraction(1, 50), 3),
        (30, Fraction(1, 3), 7),
        (25, Fraction(999, 1000), 25),
    ]:
        assert float(binomial_tail(n, p, x)) == pytest.approx(
            binom.sf(x - 1, n, float(p)), rel=1e-9
        )


@pytest.mark.parametrize("impl", IMPL_PARAMS)
def test_the_tail_is_exact(impl: str, impl_envs: None) -> None:
    todo = cases()
    given = [[[str(c) for c in chances], x] for chances, x in todo]
    got = [Fraction(t) for t in in_contestant(impl, SCRIPTS[impl], given=given)]
    for (chances, x), tail in zip(todo, got, strict=True):
        if len(set(chances)) <= 1 and chances:
            want = binomial_tail(len(chances), chances[0], x)
        else:
            want = every_way(chances, x)
        assert tail == want, (chances, x)
    for ((chances, x), want), tail in zip(BY_HAND, got, strict=False):
        assert tail == want, (chances, x)
