"""Statistics per (entry, policy): macro mean, Method D, task bootstrap, bounds (section 7)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from blake3 import blake3

from .pertask import TaskValue

Z95 = Fraction("1.96")


def macro(values: list[float], scale: float) -> float | None:
    """(fsum / n) * S; None for n = 0."""
    n = len(values)
    if n == 0:
        return None
    return (math.fsum(values) / n) * scale


def method_d(values: list[float], scale: float) -> float | None:
    """1.96 * sd(n - 1) / sqrt(n) * S, the variance exact; None for n < 2."""
    n = len(values)
    if n < 2:
        return None
    exact = [Fraction(v) for v in values]
    total = sum(exact, Fraction(0))
    squares = sum((q * q for q in exact), Fraction(0))
    var = (squares - total * total / n) / (n - 1)
    sd = math.sqrt(float(var))
    return ((1.96 * sd) / math.sqrt(n)) * scale


class BootStream:
    """key(b, j) of the portable blake3 stream, computed once per (b, j)."""

    def __init__(self, seed: int, draws: int) -> None:
        self.seed = seed
        self.draws = draws
        self._keys: list[list[int]] = [[] for _ in range(draws)]
        self._indices: dict[int, list[list[int]]] = {}

    def _extend(self, n: int) -> None:
        for b in range(self.draws):
            row = self._keys[b]
            for j in range(len(row), n):
                label = f"boot:{self.seed}|{b}|{j}".encode()
                row.append(int.from_bytes(blake3(label).digest()[:8], "big"))

    def indices(self, n: int) -> list[list[int]]:
        """index(b, j) = key(b, j) mod n, for every draw b and slot j < n."""
        if n not in self._indices:
            if self._keys and len(self._keys[0]) < n:
                self._extend(n)
            self._indices[n] = [[k % n for k in row[:n]] for row in self._keys]
        return self._indices[n]


def bootstrap(values: list[float], scale: float, stream: BootStream) -> tuple[float, float] | None:
    """(low, high): replicates sorted, positions ceil(B/40) - 1 and ceil(39B/40) - 1."""
    n = len(values)
    if n == 0:
        return None
    reps = sorted((math.fsum([values[i] for i in idx]) / n) * scale for idx in stream.indices(n))
    draws = stream.draws
    low = -(-draws // 40) - 1
    high = -(-(39 * draws) // 40) - 1
    return reps[low], reps[high]


@dataclass(frozen=True)
class EntryStats:
    """One line of entries.csv, numbers as Python values (None = empty)."""

    entry: str
    policy: str
    tasks: int
    tasks_left_out: int
    unordered_tasks: int | None
    rounded_tasks: int
    counts: dict[
        str, int | None
    ]  # selected, scored, errored, unscored, excluded, zeros_added, values
    reward_macro: float | None = None
    reward_ci95: float | None = None
    reward_boot: tuple[float, float] | None = None
    reward_bound: float | None = None
    reward_ci95_bound: float | None = None
    pass_macro: float | None = None
    pass_ci95: float | None = None
    pass_boot: tuple[float, float] | None = None

    @property
    def has_data(self) -> bool:
        """False for an entry that 7.4 makes no data (unordered tasks)."""
        return not self.unordered_tasks

    def measure(self, name: str) -> float | None:
        """The recomputed value of a measure; None when it does not exist."""
        if not self.has_data:
            return None
        if name == "task_count":
            return float(self.tasks)
        value: float | None = getattr(self, name)
        return value

    def bound(self, name: str) -> float:
        """The bound of a measure (0 for pass measures and task_count)."""
        if name == "reward_macro":
            return self.reward_bound or 0.0
        if name == "reward_ci95":
            return self.reward_ci95_bound or 0.0
        return 0.0


COUNT_NAMES = ("selected", "scored", "errored", "unscored", "excluded", "zeros_added", "values")
TRIAL_ONLY = ("scored", "errored", "unscored", "excluded", "zeros_added")


def _sum(tasks: list[TaskValue], name: str) -> int | None:
    values = [getattr(t, name) for t in tasks]
    if any(v is None for v in values):
        return None
    return sum(values)


def entry_stats(
    entry: str,
    policy: str,
    tasks: list[TaskValue],
    scale: int,
    stream: BootStream,
    registry: tuple[int, int] | None = None,
) -> EntryStats:
    """Section 7 for one entry under one policy.

    ``registry`` is (score_scale, score_decimals) for a registry source, None for trials.
    """
    ordered = [t for t in tasks if not t.unordered]
    unordered = len(tasks) - len(ordered)
    with_mean = [t for t in ordered if t.mean is not None]
    n = len(with_mean)
    counts: dict[str, int | None] = {}
    for name in COUNT_NAMES:
        counts[name] = None if registry is not None and name in TRIAL_ONLY else _sum(ordered, name)
    rounded = sum(1 for t in with_mean if not t.exact) if registry is not None else 0
    base = EntryStats(
        entry=entry,
        policy=policy,
        tasks=n,
        tasks_left_out=len(ordered) - n,
        unordered_tasks=None if registry is not None else unordered,
        rounded_tasks=rounded,
        counts=counts,
    )
    if unordered:
        return base
    s = float(scale)
    m = [t.mean for t in with_mean if t.mean is not None]
    p = [t.pass_share for t in with_mean if t.pass_share is not None]
    r_macro = macro(m, s)
    r_ci95 = method_d(m, s)
    r_bound: float | None = None
    c_bound: float | None = None
    if registry is None:
        r_bound = None if r_macro is None else 0.0
        c_bound = None if r_ci95 is None else 0.0
    else:
        score_scale, decimals = registry
        h = Fraction(1, 2) / Fraction(10) ** decimals / score_scale
        if r_macro is not None:
            r_bound = float(Fraction(scale) * h * rounded / n)
        if r_ci95 is not None:
            w = (Z95 * scale * h) ** 2 * rounded / (n * (n - 1))
            c_bound = math.sqrt(float(w))
    return EntryStats(
        entry=base.entry,
        policy=base.policy,
        tasks=base.tasks,
        tasks_left_out=base.tasks_left_out,
        unordered_tasks=base.unordered_tasks,
        rounded_tasks=base.rounded_tasks,
        counts=base.counts,
        reward_macro=r_macro,
        reward_ci95=r_ci95,
        reward_boot=bootstrap(m, s, stream),
        reward_bound=r_bound,
        reward_ci95_bound=c_bound,
        pass_macro=macro(p, s),
        pass_ci95=method_d(p, s),
        pass_boot=bootstrap(p, s, stream),
    )
