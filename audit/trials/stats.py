"""Statistics for compare-runs (docs/trials-contract.md section 11.3), in pure Python.

The referee may not import scipy at run time, so the t quantile is computed here:
the Student t CDF through the regularised incomplete beta function (Lentz's
continued fraction, as in Numerical Recipes' ``betacf``), inverted by bisection
to the last bit. Tests compare it with ``scipy.stats.t.ppf``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import blake3

EPS = Fraction(1, 10**12)
LIMIT_KEYS = 1 << 20  # convolution keys, or relabellings of one task
LIMIT_STEP = 1 << 24  # (key, value) pairs combined in one convolution step
WILSON_Z = 1.959963984540054


@dataclass(frozen=True)
class PermutationTest:
    """A permutation test's outcome: ``count`` of ``total`` relabellings (exact: every one;
    Monte Carlo: the seeded draws) at least as extreme as the observed statistic."""

    method: str  # "exact" or "monte_carlo"
    count: int
    total: int
    p: Fraction
    # the smallest p the test can give (sign flip: 2/2^n exact, 1/(1 + draws) Monte Carlo);
    # None where the test does not state it (the within-task test)
    p_min: Fraction | None = None


@dataclass(frozen=True)
class TInterval:
    """The mean of per-task values and its 95% t interval; no spread below two tasks."""

    mean: Fraction
    sd: float | None
    df: int | None
    q: float | None  # the t quantile at 0.975, df degrees of freedom
    low: float | None
    high: float | None


def fmt_fraction(x: Fraction | int) -> str:
    """Six decimals of an exact rational, half to even; never ``-0.000000``."""
    q = round(Fraction(x) * 10**6)
    sign = "-" if q < 0 else ""
    q = abs(q)
    return f"{sign}{q // 10**6}.{q % 10**6:06d}"


def fmt_float(x: float) -> str:
    text = f"{x:.6f}"
    return "0.000000" if text == "-0.000000" else text


# --- t quantile -----------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(ln)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2.0, 0.5, x)
    return 1.0 - tail if t >= 0 else tail


def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom, for 0.5 < p < 1, by bisection."""
    if not 0.5 < p < 1.0:
        raise ValueError("t_ppf is defined here for 0.5 < p < 1")
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return hi if abs(t_cdf(hi, df) - p) <= abs(t_cdf(lo, df) - p) else lo


# --- exact tests ----------------------------------------------------------------


class TooLarge(Exception):
    """Exact counting abandoned: the Monte Carlo fallback applies."""


def _key(label: str) -> int:
    return int.from_bytes(blake3.blake3(label.encode("utf-8")).digest()[:8], "big")


def convolve(dists: Sequence[dict[Fraction, int]]) -> dict[Fraction, int]:
    acc: dict[Fraction, int] = {Fraction(0): 1}
    for dist in dists:
        if len(acc) * len(dist) > LIMIT_STEP:
            raise TooLarge
        nxt: dict[Fraction, int] = {}
        for s, m in acc.items():
            for v, k in dist.items():
                nxt[s + v] = nxt.get(s + v, 0) + m * k
        if len(nxt) > LIMIT_KEYS:
            raise TooLarge
        acc = nxt
    return acc


def sign_flip(d: Sequence[Fraction], seed: int, draws: int) -> PermutationTest:
    """Two-sided sign-flip test over tasks: count of |sum s_t d_t| >= |sum d_t| - eps."""
    n = len(d)
    obs = abs(sum(d, Fraction(0)))
    try:
        # a zero difference has one value but two sign vectors
        dist = convolve([{x: 2} if x == 0 else {x: 1, -x: 1} for x in d])
        count = sum(m for s, m in dist.items() if abs(s) >= obs - EPS)
        total = 2**n
        return PermutationTest("exact", count, total, Fraction(count, total), Fraction(2, total))
    except TooLarge:
        count = 0
        for i in range(draws):
            s = sum(
                (-x if _key(f"signflip:{seed}|{i}|{t}") % 2 else x for t, x in enumerate(d)),
                Fraction(0),
            )
            count += abs(s) >= obs - EPS
        return PermutationTest(
            "monte_carlo", count, draws, Fraction(1 + count, 1 + draws), Fraction(1, 1 + draws)
        )


def _mean(xs: Sequence[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) / len(xs)


def _task_dist(pooled: Sequence[Fraction], na: int) -> dict[Fraction, int]:
    n = len(pooled)
    if math.comb(n, na) > LIMIT_KEYS:
        raise TooLarge
    total = sum(pooled, Fraction(0))
    dist: dict[Fraction, int] = {}
    for pick in combinations(range(n), na):
        sa = sum((pooled[j] for j in pick), Fraction(0))
        stat = sa / na - (total - sa) / (n - na)
        dist[stat] = dist.get(stat, 0) + 1
    return dist


def within_task(
    a: Sequence[Sequence[Fraction]], b: Sequence[Sequence[Fraction]], seed: int, draws: int
) -> PermutationTest:
    """Exact within-task permutation test; the Monte Carlo fallback of 11.3 when too large."""
    diffs = (_mean(x) - _mean(y) for x, y in zip(a, b, strict=True))
    obs = abs(sum(diffs, Fraction(0)))
    pooled = [[*x, *y] for x, y in zip(a, b, strict=True)]
    try:
        dist = convolve([_task_dist(p, len(x)) for p, x in zip(pooled, a, strict=True)])
        count = sum(m for s, m in dist.items() if abs(s) >= obs - EPS)
        total = math.prod(math.comb(len(p), len(x)) for p, x in zip(pooled, a, strict=True))
        return PermutationTest("exact", count, total, Fraction(count, total))
    except TooLarge:
        count = 0
        for i in range(draws):
            stat = Fraction(0)
            for t, (p, x) in enumerate(zip(pooled, a, strict=True)):
                order = sorted(
                    range(len(p)), key=lambda j: (_key(f"relabel:{seed}|{i}|{t}|{j}"), j)
                )
                na = len(x)
                sa = sum((p[j] for j in order[:na]), Fraction(0))
                sb = sum((p[j] for j in order[na:]), Fraction(0))
                stat += sa / na - sb / (len(p) - na)
            count += abs(stat) >= obs - EPS
        return PermutationTest("monte_carlo", count, draws, Fraction(1 + count, 1 + draws))


# --- intervals and pass@k -------------------------------------------------------


def t_interval(d: Sequence[Fraction], ppf: Callable[[float, float], float] = t_ppf) -> TInterval:
    n = len(d)
    mean = sum(d, Fraction(0)) / n
    if n < 2:
        return TInterval(mean, None, None, None, None, None)
    var = sum(((x - mean) ** 2 for x in d), Fraction(0)) / (n - 1)
    sd = math.sqrt(float(var))
    se = sd / math.sqrt(n)
    q = float(ppf(0.975, n - 1))
    return TInterval(mean, sd, n - 1, q, float(mean) - q * se, float(mean) + q * se)


def wilson(k: int, n: int) -> tuple[float, float]:
    z = WILSON_Z
    z2 = z * z
    center = (k + z2 / 2) / (n + z2)
    half = z / (n + z2) * math.sqrt(k * (n - k) / n + z2 / 4)
    return center - half, center + half


def _check_k(n: int, c: int, k: int) -> None:
    """pass@k and pass^k need 1 <= k <= n and 0 <= c <= n (a task with fewer than k tries
    has no estimate: the caller leaves it out, with the reason)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not 0 <= c <= n:
        raise ValueError(f"passes {c} outside 0..{n}")
    if n < k:
        raise ValueError(f"{n} tries < k = {k}: no unbiased estimate")


def pass_at_k(n: int, c: int, k: int) -> Fraction:
    _check_k(n, c, k)
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def pass_pow_k(n: int, c: int, k: int) -> Fraction:
    _check_k(n, c, k)
    return Fraction(math.comb(c, k), math.comb(n, k))


# --- exact intervals and power (section 11.6) ---------------------------------


def beta_ppf(p: float, a: float, b: float) -> float:
    """Quantile of the Beta(a, b) distribution, by bisection on ``betainc`` to the last bit."""
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if betainc(a, b, mid) < p:
            lo = mid
        else:
            hi = mid
    return hi if abs(betainc(a, b, hi) - p) <= abs(betainc(a, b, lo) - p) else lo


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval for k successes in n trials: the beta quantiles
    B(a/2; k, n-k+1) and B(1-a/2; k+1, n-k), with 0 for k = 0 and 1 for k = n."""
    a = 1.0 - confidence
    low = 0.0 if k == 0 else beta_ppf(a / 2.0, k, n - k + 1)
    high = 1.0 if k == n else beta_ppf(1.0 - a / 2.0, k + 1, n - k)
    return low, high


def trials_per_arm(p1: float, p2: float, alpha: float, power: float) -> int | None:
    """Trials per arm for a two-sided two-proportion z test at ``alpha`` to reject
    p1 = p2 with probability ``power`` when the rates are p1 and p2:
    n = ceil(((z_{1-alpha/2} sqrt(2 pbar (1 - pbar)) + z_power sqrt(p1 q1 + p2 q2))
    / (p1 - p2))^2), pbar = (p1 + p2) / 2. None when p1 = p2 (no n suffices)."""
    from statistics import NormalDist

    if p1 == p2:
        return None
    z = NormalDist()
    za, zb = z.inv_cdf(1.0 - alpha / 2.0), z.inv_cdf(power)
    pbar = (p1 + p2) / 2.0
    root = za * math.sqrt(2.0 * pbar * (1.0 - pbar)) + zb * math.sqrt(
        p1 * (1.0 - p1) + p2 * (1.0 - p2)
    )
    return math.ceil((root / (p1 - p2)) ** 2)


def min_tasks_sign_flip(alpha: float) -> int:
    """The fewest tasks n whose exact two-sided sign-flip test can give p <= alpha:
    the smallest possible p is 2 / 2^n."""
    n = 1
    while Fraction(2, 2**n) > Fraction(alpha):
        n += 1
    return n
