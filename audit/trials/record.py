"""A trials prereg (trials v1, workflow/schemas/trials-prereg.schema.yaml) as frozen records.

``parse`` turns a document that passed the trials checks (audit/trials/prereg.py
``check``) into one ``Prereg``; it is called in one place, the kind's reader
(``load_record``, Kind role ``record``), and refuses (``bad_prereg``) a document of
another shape rather than guess. The shapes shared with a leaderboard prereg
(disclosure, amendment, tolerance) are the cells records' (audit/cells/record.py).
Named things keep the prereg's order (a read-only mapping); lists are tuples; numbers
are kept as the file wrote them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit.cells.record import Amends, Tolerance, frozen_mapping
from audit.core import disclosure
from audit.core.disclosure import Disclosure, Relation
from audit.errors import AuditError

__all__ = ["Amends", "Disclosure", "Relation", "Tolerance"]  # shared with a leaderboard prereg


@dataclass(frozen=True)
class Source:
    """Where the trials come from: a registry table (``kind`` registry: its column names)
    or a jobs folder an adapter reads (``kind`` trials: ``format``, ``jobs``)."""

    kind: str  # registry or trials
    table: str
    # a registry's columns
    entry: tuple[str, ...] = ()
    task: str | None = None
    score: str | None = None
    score_scale: int | None = None
    score_decimals: int | None = None
    trials: str | None = None
    pass_count: str | None = None
    perfect_count: str | None = None
    # a jobs folder's
    format: str | None = None
    jobs: str | None = None
    duplicates: str | None = None  # tb-run-v1 only
    min_tries: int | None = None  # tb-run-v1 only


@dataclass(frozen=True)
class Column:
    """A measured column of the published leaderboard (section 8.1)."""

    name: str
    measures: tuple[str, ...]  # one or several, as declared
    measure_listed: bool  # declared as a list (even of one)
    policies: tuple[str, ...]
    tolerance: str
    row_tolerances: Mapping[str, str]
    rounding: tuple[str, ...] | None = None  # None: absent (half_even alone)
    k: int | None = None  # pass_at_k / pass_hat_k
    published: bool = True  # False: not in the table (section 16.5)

    def tolerance_for(self, row: str) -> str:
        """The tolerance's name a cell of ``row`` is compared under."""
        return self.row_tolerances.get(row, self.tolerance)


@dataclass(frozen=True)
class Leaderboard:
    table: str
    row_key: tuple[str, ...]
    types: Mapping[str, str] | None  # a .csv leaderboard's column types
    structural: tuple[str, ...]
    no_antecedent: tuple[str, ...]
    measured: Mapping[str, Column]  # every declared column, published or not


@dataclass(frozen=True)
class Policy:
    """A declared policy: a registry's (``registry_means``) or a trial table's."""

    name: str
    description: str
    registry_means: str | None = None
    select: str | None = None
    k: int | None = None
    copies: str | None = None
    errored: str | None = None
    unscored: str | None = None
    empty_slots: str | None = None
    slots: int | None = None
    reward: str | None = None  # None: absent (original)
    broken_verifier: str | None = None  # None: absent (as_zero)


# Trials contract section 4, "Built-in policies": always computed for a trial table's
# source (never for a registry), never declared (a prereg declaring either name is refused).
BUILT_INS: Mapping[str, Policy] = frozen_mapping(
    {
        "attempted": Policy(
            "attempted",
            "over attempted trials: errored and unscored trials count as 0",
            select="all",
            copies="drop",
            errored="zero",
            unscored="zero",
            empty_slots="ignore",
        ),
        "scored": Policy(
            "scored",
            "over scored trials only: errored and unscored trials are left out",
            select="all",
            copies="drop",
            errored="exclude",
            unscored="exclude",
            empty_slots="ignore",
        ),
    }
)


@dataclass(frozen=True)
class Control:
    """``target``: "seeded", or the key the prereg names it by and the names: ("run",
    (<run>,)), ("entry", (<entry>,)), a swap's ("runs", (<a>, <b>)) or ("entries", ...)."""

    name: str
    kind: str
    target: str | tuple[str, tuple[str, ...]]
    size: int | None = None

    @property
    def seeded(self) -> bool:
        return self.target == "seeded"

    @property
    def names(self) -> tuple[str, ...]:
        """The runs or entries the prereg names as the target (none when seeded)."""
        return () if isinstance(self.target, str) else self.target[1]


@dataclass(frozen=True)
class Compare:
    a: str
    b: str
    denominator: str
    k: tuple[int, ...]
    draws: int
    under_study: tuple[str, ...]
    # optional keys (None: absent, the command's default)
    difference: str | None = None
    unit: str | None = None
    reward: str | None = None
    broken: str | None = None
    alpha: float | None = None
    power: float | None = None

    def optional(self) -> dict[str, Any]:
        """The optional keys the prereg sets, in the schema's order."""
        keys = ("difference", "unit", "reward", "broken", "alpha", "power")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


@dataclass(frozen=True)
class Ranks:
    columns: tuple[str, ...]
    policy: str
    alpha: float | int
    correction: str
    seed: int
    draws: int


@dataclass(frozen=True)
class Runs:
    unit: str
    pass_k: tuple[int, ...]


@dataclass(frozen=True)
class Prereg:
    version: int
    name: str
    source: Source
    leaderboard: Leaderboard | None
    policies: Mapping[str, Policy]
    scale: int
    rounding: str
    tolerances: Mapping[str, Tolerance]
    seed: int
    bootstrap_draws: int
    null_draws: int
    controls: Mapping[str, Control]
    compare: Compare | None
    disclosure: Disclosure
    ranks: Ranks | None = None
    runs: Runs | None = None
    amends: Amends | None = None

    @property
    def trials_source(self) -> bool:
        """A jobs folder an adapter reads (not a registry table)."""
        return self.source.kind == "trials"

    def computed_policies(self) -> dict[str, Policy]:
        """Every policy computed: the declared ones, then a trial table's built-ins
        (``BUILT_INS``; a registry has none)."""
        return {**self.policies, **(BUILT_INS if self.trials_source else {})}

    def measured(self) -> dict[str, Column]:
        """The published measured columns (none without a leaderboard), by name."""
        if self.leaderboard is None:
            return {}
        return {n: c for n, c in self.leaderboard.measured.items() if c.published}

    def tolerance_of(self, row: str, column: str) -> Tolerance:
        """The tolerance a cell was compared under: its row's, or its column's."""
        assert self.leaderboard is not None
        return self.tolerances[self.leaderboard.measured[column].tolerance_for(row)]

    def judged(self) -> tuple[str, ...]:
        """The published measured columns the census judges, in the prereg's order
        (either kind's record answers this, as the report asks it)."""
        return tuple(self.measured())

    def cell_tolerance(self, row: str, column: str) -> Tolerance:
        """The tolerance a cell was compared under (``tolerance_of``): either kind's
        record answers this."""
        return self.tolerance_of(row, column)

    @property
    def self_test(self) -> tuple[str, ...]:
        """The self-test's faults: none, trials v1 declares no self-test (either kind's
        record answers this, as the seal asks it)."""
        return ()


def _source(s: dict[str, Any]) -> Source:
    if s["kind"] == "registry":
        return Source(
            "registry",
            s["table"],
            entry=tuple(s["entry"]),
            task=s["task"],
            score=s["score"],
            score_scale=s["score_scale"],
            score_decimals=s["score_decimals"],
            trials=s["trials"],
            pass_count=s["pass_count"],
            perfect_count=s["perfect_count"],
        )
    if s["kind"] != "trials":
        raise ValueError(f"source kind {s['kind']!r}")
    return Source(
        "trials",
        s["table"],
        format=s["format"],
        jobs=s["jobs"],
        duplicates=s.get("duplicates"),
        min_tries=s.get("min_tries"),
    )


def _column(name: str, s: dict[str, Any]) -> Column:
    m = s["measure"]
    return Column(
        name=name,
        measures=tuple(m) if isinstance(m, list) else (m,),
        measure_listed=isinstance(m, list),
        policies=tuple(s["policies"]),
        tolerance=s["tolerance"],
        row_tolerances=frozen_mapping(s["row_tolerances"]),
        rounding=tuple(s["rounding"]) if "rounding" in s else None,
        k=s.get("k"),
        published=s.get("published", True) is not False,
    )


def _leaderboard(b: dict[str, Any] | None) -> Leaderboard | None:
    if b is None:
        return None
    cols = b["columns"]
    return Leaderboard(
        table=b["table"],
        row_key=tuple(b["row_key"]),
        types=frozen_mapping(b["types"]) if "types" in b else None,
        structural=tuple(cols["structural"]),
        no_antecedent=tuple(cols["no_antecedent"]),
        measured=frozen_mapping({n: _column(n, s) for n, s in cols["measured"].items()}),
    )


def _policy(name: str, s: dict[str, Any]) -> Policy:
    if "registry_means" in s:
        return Policy(name, s["description"], registry_means=s["registry_means"])
    return Policy(
        name,
        s["description"],
        select=s["select"],
        k=s["k"],
        copies=s["copies"],
        errored=s["errored"],
        unscored=s["unscored"],
        empty_slots=s["empty_slots"],
        slots=s["slots"],
        reward=s.get("reward"),
        broken_verifier=s.get("broken_verifier"),
    )


def _control(name: str, s: dict[str, Any]) -> Control:
    t = s["target"]
    target: str | tuple[str, tuple[str, ...]]
    if isinstance(t, dict):
        ((key, value),) = t.items()  # run or entry: one name; runs or entries: two
        target = (key, tuple(value) if isinstance(value, list) else (value,))
    elif t == "seeded":
        target = t
    else:
        raise ValueError(f"control target {t!r}")
    return Control(name, s["kind"], target, s.get("size"))


def _compare(c: dict[str, Any] | None) -> Compare | None:
    if c is None:
        return None
    return Compare(
        c["a"],
        c["b"],
        c["denominator"],
        tuple(c["k"]),
        c["draws"],
        tuple(c["under_study"]),
        c.get("difference"),
        c.get("unit"),
        c.get("reward"),
        c.get("broken"),
        c.get("alpha"),
        c.get("power"),
    )


def parse(doc: Any, path: str) -> Prereg:
    """The record of a checked trials prereg; ``bad_prereg`` naming ``path`` if the
    document is not of the checked shape."""
    try:
        return _parse(doc)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise AuditError("bad_prereg", path, f"not a checked trials prereg ({err!r})") from None


def _parse(doc: dict[str, Any]) -> Prereg:
    ranks, runs, amends = doc.get("ranks"), doc.get("runs"), doc.get("amends")
    return Prereg(
        version=doc["version"],
        name=doc["name"],
        source=_source(doc["source"]),
        leaderboard=_leaderboard(doc["leaderboard"]),
        policies=frozen_mapping({n: _policy(n, s) for n, s in doc["policies"].items()}),
        scale=doc["scale"],
        rounding=doc["rounding"],
        tolerances=frozen_mapping(
            {
                n: Tolerance(n, s["exact_decimals"], tuple(s["tiers"]))
                for n, s in doc["tolerances"].items()
            }
        ),
        seed=doc["seed"],
        bootstrap_draws=doc["bootstrap_draws"],
        null_draws=doc["null_draws"],
        controls=frozen_mapping({n: _control(n, s) for n, s in (doc["controls"] or {}).items()}),
        compare=_compare(doc["compare"]),
        disclosure=disclosure.of(doc),
        ranks=(
            Ranks(
                tuple(ranks["columns"]),
                ranks["policy"],
                ranks["alpha"],
                ranks["correction"],
                ranks["seed"],
                ranks["draws"],
            )
            if ranks
            else None
        ),
        runs=Runs(runs["unit"], tuple(runs["pass_k"])) if runs else None,
        amends=Amends(amends["arm"], amends["head"]) if amends else None,
    )
