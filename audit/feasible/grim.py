"""Whether any count gives a published mean or spread: exact whole numbers and fractions.

The published numbers are taken as m values, each a whole number a in
[lo, hi] divided by q, times a scale (100 for a percentage):

- a rate or mean over N items of integer scores in [lo, hi]: m = N, q = 1;
- a mean over M runs, each a rate or mean over N items: m = M, q = N, and
  each run's a in [lo·N, hi·N].

Their mean is scale·S/(m·q), S the sum of the a's (GRIM, Brown & Heathers
2016). Their spread is fixed by S and the sum of squares Q (GRIMMER, Anaya
2016): the variance is (m·Q - S²)/(q²·m·D), D = m (population) or m - 1
(sample); the SD is scale·sqrt(variance), the SE the SD over sqrt(m), a CI
half-width z times the SE. A spread is compared squared, so every decision is
a comparison of fractions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from audit.feasible.decimals import Interval, Printed, fixed, interval

# The exact search over sums of squares stops beyond this many steps; the
# necessary conditions (the least and most Q, its parity) still decide there.
SEARCH_BUDGET = 3_000_000
# ... or hold more than this many bits of sums of squares at once (100 MB).
MEMORY_BITS = 800_000_000

# A spread is tried at every sum S its mean allows (every one without a mean);
# past this many, undecided.
SUMS_BUDGET = 200_000

SPREADS = ("sd", "se", "ci")
SDS = ("sample", "population", "either")


@dataclass(frozen=True)
class Grid:
    """m values, each a whole number in [lo, hi] over q, times scale."""

    m: int
    q: int
    lo: int
    hi: int
    scale: Fraction

    @property
    def sums(self) -> range:
        return range(self.m * self.lo, self.m * self.hi + 1)

    def mean(self, s: int) -> Fraction:
        return self.scale * Fraction(s, self.m * self.q)


def grid(n: int, scores: tuple[int, int], scale: Fraction, runs: int | None) -> Grid:
    """The grid of a value over n items of integer scores (and over runs of them, if given)."""
    if n <= 0:
        raise ValueError("the count N must be a positive whole number")
    lo, hi = scores
    if runs is None:
        return Grid(n, 1, lo, hi, scale)
    if runs <= 0:
        raise ValueError("the number of runs must be a positive whole number")
    return Grid(runs, n, lo * n, hi * n, scale)


def _ceil_in(x: Fraction, closed: bool) -> int:
    """The least whole number above x (at x too when closed)."""
    c = math.ceil(x)
    return c if (closed or c != x) else c + 1


def _floor_in(x: Fraction, closed: bool) -> int:
    """The greatest whole number below x (at x too when closed)."""
    f = math.floor(x)
    return f if (closed or f != x) else f - 1


@dataclass(frozen=True)
class MeanVerdict:
    feasible: bool
    sums: range  # the sums S that print as the value (empty when infeasible)
    below: int | None  # the nearest S under the value's interval, if any on the grid
    above: int | None  # the nearest S over it


def mean_sums(g: Grid, iv: Interval) -> MeanVerdict:
    """The sums S whose mean scale·S/(m·q) lies in iv, and the nearest on either side."""
    c = g.scale / (g.m * g.q)  # mean per unit of S (> 0)
    first = max(_ceil_in(iv.lo / c, iv.lo_in), g.sums.start)
    last = min(_floor_in(iv.hi / c, iv.hi_in), g.sums.stop - 1)
    inside = range(first, last + 1) if first <= last else range(0)
    lo_edge = _ceil_in(iv.lo / c, iv.lo_in)
    hi_edge = _floor_in(iv.hi / c, iv.hi_in)
    below = min(lo_edge - 1, g.sums.stop - 1)
    above = max(hi_edge + 1, g.sums.start)
    return MeanVerdict(
        bool(inside),
        inside,
        below if below >= g.sums.start else None,
        above if above < g.sums.stop else None,
    )


def _squares_range(g: Grid, s: int, iv: Interval, factor: Fraction) -> tuple[int, int]:
    """The whole Q with spread² = factor·(m·Q - S²) inside iv squared (first > last if none)."""
    lo, lo_in = iv.lo, iv.lo_in
    if lo < 0:  # a spread is never negative: the interval starts at 0, included
        lo, lo_in = Fraction(0), True
    if iv.hi < 0 or (iv.hi == 0 and not iv.hi_in):
        return 1, 0
    # factor·(mQ - S²) in [lo², hi²]  <=>  Q in [(lo²/factor + S²)/m, (hi²/factor + S²)/m]
    q_lo = (lo * lo / factor + s * s) / g.m
    q_hi = (iv.hi * iv.hi / factor + s * s) / g.m
    return _ceil_in(q_lo, lo_in), _floor_in(q_hi, iv.hi_in)


def _least_most(m: int, r: int, s: int) -> tuple[int, int]:
    """The least and most sum of squares of m whole numbers in [0, r] summing to s."""
    q0, rem = divmod(s, m)
    least = rem * (q0 + 1) ** 2 + (m - rem) * q0 * q0
    full, part = divmod(s, r) if r else (0, 0)
    most = full * r * r + part * part
    return least, most


def _reachable(m: int, r: int, s: int, q_first: int, q_last: int) -> bool | None:
    """Whether m whole numbers in [0, r] with sum s have a sum of squares in [q_first, q_last]."""
    return _reachable_many(m, r, [(s, q_first, q_last)])[0]


def _reachable_many(m: int, r: int, asks: list[tuple[int, int, int]]) -> list[bool | None]:
    """Each ask (s, q_first, q_last): whether m whole numbers in [0, r] summing to s have a
    sum of squares in [q_first, q_last].

    None when the exact search would pass its budget and the necessary
    conditions (least and most Q, Q of the parity of s) do not decide. One
    search answers every ask.
    """
    out: list[bool | None] = []
    pending: list[tuple[int, int, int, int]] = []  # (index, s, first, last)
    for i, (s, q_first, q_last) in enumerate(asks):
        if q_first > q_last:
            out.append(False)
        elif r == 0:
            out.append(s == 0 and q_first <= 0 <= q_last)
        elif r == 1:  # 0s and 1s: Q = S
            out.append(q_first <= s <= q_last)
        else:
            least, most = _least_most(m, r, s)
            first, last = max(q_first, least), min(q_last, most)
            # a² has a's parity, so Q has the parity of s
            if first + (first - s) % 2 > last:
                out.append(False)
            else:
                out.append(None)
                pending.append((i, s, first, last))
    if not pending:
        return out
    s_max = max(p[1] for p in pending)
    bits = max(p[3] for p in pending) + 1
    if min(m, s_max) * s_max * r > SEARCH_BUDGET or 2 * (s_max + 1) * bits > MEMORY_BITS:
        return out
    found = _search(m, r, s_max, bits)
    for i, s, first, last in pending:
        out[i] = bool((found[s] & ((1 << (last + 1)) - 1)) >> first)
    return out


def _search(m: int, r: int, s_max: int, bits: int) -> list[int]:
    """Per sum t <= s_max, a bitmask of the sums of squares (below 2**bits) that m whole
    numbers in [0, r] summing to t can have.

    Zeros add nothing, so: at most m numbers in [1, r]. prev[t] holds the
    squares' sums of c - 1 such numbers summing to t; c runs to min(m, s_max).
    """
    window = (1 << bits) - 1
    prev = [0] * (s_max + 1)
    prev[0] = 1
    found = prev[:]
    for c in range(1, min(m, s_max) + 1):
        cur = [0] * (s_max + 1)
        for t in range(c, s_max + 1):
            acc = 0
            for v in range(1, min(r, t) + 1):
                x = prev[t - v]
                if x:
                    acc |= x << (v * v)
            cur[t] = acc & window
        found = [a | b for a, b in zip(found, cur, strict=True)]
        prev = cur
    return found


@dataclass(frozen=True)
class SpreadVerdict:
    verdict: str  # feasible, infeasible or undecided
    note: str


def spread_check(
    g: Grid,
    spread: Printed,
    rounding: str,
    kind: str,
    sd: str,
    z: Fraction | None,
    mean: Printed | None,
) -> SpreadVerdict:
    """Whether some sum S (consistent with the published mean, if given) and sum of
    squares Q give the published spread."""
    if mean is not None:
        mv = mean_sums(g, interval(mean, rounding))
        if not mv.feasible:
            return SpreadVerdict("infeasible", "the mean itself is infeasible")
        sums = mv.sums
    else:
        sums = g.sums
    if sums.stop - sums.start > SUMS_BUDGET:  # len() of a range past 2**63 raises
        return SpreadVerdict("undecided", f"more than {SUMS_BUDGET} sums to try")
    iv = interval(spread, rounding)
    ddofs = {"population": [0], "sample": [1], "either": [0, 1]}[sd]
    undecided = False
    for ddof in ddofs:
        d = g.m - ddof
        if d <= 0:
            continue  # a sample SD of one value is undefined
        factor = g.scale * g.scale / (g.q * g.q * g.m * d)
        if kind in ("se", "ci"):
            factor /= g.m
        if kind == "ci":
            assert z is not None
            factor *= z * z
        asks = []
        for s in sums:
            q_first, q_last = _squares_range(g, s, iv, factor)
            sp = s - g.m * g.lo
            base = 2 * g.lo * sp + g.m * g.lo * g.lo  # Q = Q' + base for the shifted values
            asks.append((sp, q_first - base, q_last - base))
        for s, got in zip(sums, _reachable_many(g.m, g.hi - g.lo, asks), strict=True):
            if got:
                label = "population" if ddof == 0 else "sample"
                return SpreadVerdict(
                    "feasible", f"{label} SD, sum {s}/{g.m * g.q} = {show(g, s, spread)}"
                )
            if got is None:
                undecided = True
    if undecided:
        return SpreadVerdict("undecided", "beyond the exact search's budget")
    return SpreadVerdict("infeasible", "no sum of squares gives it")


def show(g: Grid, s: int, p: Printed) -> str:
    """The mean of sum s written two decimals finer than p, at least 2."""
    return fixed(g.mean(s), max(p.decimals + 1, 2))


def mean_note(g: Grid, v: MeanVerdict, p: Printed) -> str:
    """The counts that give the value, or the nearest on either side."""
    den = g.m * g.q
    if v.feasible:
        first, last = v.sums.start, v.sums.stop - 1
        if first == last:
            return f"{first}/{den} = {show(g, first, p)}"
        return f"{first}/{den} = {show(g, first, p)} .. {last}/{den} = {show(g, last, p)}"
    parts = [f"{s}/{den} = {show(g, s, p)}" for s in (v.below, v.above) if s is not None]
    return ", ".join(parts) if parts else "no count"
