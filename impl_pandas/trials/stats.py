"""Statistics per (entry, policy) (contract trials v1, section 7) and the rounding bounds (6.1)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from blake3 import blake3

from ..prereg.trials import Source
from .tasks import TaskValue


@dataclass(frozen=True)
class EntryStats:
    """One entries.csv line's numbers; None is no data (or, for counts, not given)."""

    tasks: int | None
    tasks_left_out: int
    unordered_tasks: int | None
    rounded_tasks: int
    counts: dict[str, int | None]
    reward_macro: float | None
    reward_ci95: float | None
    reward_boot: tuple[float, float] | None
    reward_bound: float | None
    reward_ci95_bound: float | None
    pass_macro: float | None
    pass_ci95: float | None
    pass_boot: tuple[float, float] | None
    task_count: float | None


COUNT_FIELDS = ("selected", "scored", "errored", "unscored", "excluded", "zeros_added", "values")

_INDICES: dict[tuple[int, int, int], np.ndarray] = {}


def boot_indices(seed: int, draws: int, n: int) -> np.ndarray:
    """index(b, j) = first 8 bytes of blake3("boot:{seed}|{b}|{j}"), big-endian, mod n."""
    key = (seed, draws, n)
    if key not in _INDICES:
        table = np.zeros((draws, n), dtype=np.intp)
        for b in range(draws):
            for j in range(n):
                digest = blake3(f"boot:{seed}|{b}|{j}".encode()).digest()
                table[b, j] = int.from_bytes(digest[:8], "big") % n
        _INDICES[key] = table
    return _INDICES[key]


def macro(xs: list[float], scale: float) -> float | None:
    """(fsum / n) * S; None for n = 0."""
    if not xs:
        return None
    return (math.fsum(xs) / len(xs)) * scale


def method_d(xs: list[float], scale: float) -> float | None:
    """((1.96 * sd) / sqrt(n)) * S with the exact rational sample variance; None for n < 2."""
    n = len(xs)
    if n < 2:
        return None
    exact = [Fraction(x) for x in xs]
    total = sum(exact, Fraction(0))
    variance = (sum((x * x for x in exact), Fraction(0)) - total * total / n) / (n - 1)
    sd = math.sqrt(float(variance))
    return ((1.96 * sd) / math.sqrt(n)) * scale


def bootstrap(xs: list[float], scale: float, seed: int, draws: int) -> tuple[float, float] | None:
    """Percentile interval (inverted CDF at positions ceil(B/40)-1, ceil(39B/40)-1)."""
    n = len(xs)
    if n == 0:
        return None
    if n == 1:
        reps = [(math.fsum(xs) / 1) * scale] * draws
    else:
        idx = boot_indices(seed, draws, n)
        arr = np.array(xs, dtype=np.float64)
        reps = [(math.fsum(arr[row].tolist()) / n) * scale for row in idx]
    reps.sort()
    low = -(-draws // 40) - 1
    high = -(-(39 * draws) // 40) - 1
    return reps[low], reps[high]


def rounding_bounds(
    source: Source, scale: int, n: int, m: int
) -> tuple[float | None, float | None]:
    """reward_bound and reward_ci95_bound of section 6.1 (None where n is too small)."""
    if n == 0:
        return None, None
    half = Fraction(1, 2 * 10**source.score_decimals) / source.score_scale
    bound = float(Fraction(scale) * half * m / n)
    if n < 2:
        return bound, None
    w = (Fraction("1.96") * scale * half) ** 2 * m / (n * (n - 1))
    return bound, math.sqrt(float(w))


def entry_stats(
    tasks: list[TaskValue],
    scale: int,
    seed: int,
    draws: int,
    source: Source | None,
) -> EntryStats:
    """Section 7 for one entry under one policy. `source` is given for registries only."""
    registry = source is not None
    unordered = [t for t in tasks if t.unordered]
    ordered = [t for t in tasks if not t.unordered]
    with_mean = [t for t in ordered if t.mean is not None]
    left_out = len(ordered) - len(with_mean)
    rounded = sum(1 for t in with_mean if t.rounded)
    counts: dict[str, int | None] = {}
    for name in COUNT_FIELDS:
        if registry and name not in ("selected", "values"):
            counts[name] = None
        else:
            counts[name] = sum(getattr(t, name) for t in ordered)
    unordered_tasks = None if registry else len(unordered)
    if unordered:
        return EntryStats(
            None,
            left_out,
            unordered_tasks,
            rounded,
            counts,
            *([None] * 9),  # type: ignore[arg-type]
        )
    s = float(scale)
    m = [t.mean for t in with_mean]
    p = [t.pass_share for t in with_mean]
    n = len(m)
    reward_macro = macro(m, s)  # type: ignore[arg-type]
    reward_ci95 = method_d(m, s)  # type: ignore[arg-type]
    if registry:
        bound, ci_bound = rounding_bounds(source, scale, n, rounded)
    else:
        bound, ci_bound = (0.0 if n else None), (0.0 if n >= 2 else None)
    return EntryStats(
        tasks=n,
        tasks_left_out=left_out,
        unordered_tasks=unordered_tasks,
        rounded_tasks=rounded,
        counts=counts,
        reward_macro=reward_macro,
        reward_ci95=reward_ci95,
        reward_boot=bootstrap(m, s, seed, draws),  # type: ignore[arg-type]
        reward_bound=bound,
        reward_ci95_bound=ci_bound,
        pass_macro=macro(p, s),  # type: ignore[arg-type]
        pass_ci95=method_d(p, s),  # type: ignore[arg-type]
        pass_boot=bootstrap(p, s, seed, draws),  # type: ignore[arg-type]
        task_count=float(n),
    )
