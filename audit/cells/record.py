"""A leaderboard prereg (cells v1, workflow/schemas/prereg.schema.yaml) as frozen records.

``parse`` turns a document that passed the schema and logic checks
(audit/cells/prereg.py ``check``) into one ``Prereg``: the referee reads its
decisions as attributes, never by indexing the document. It is called in one place,
the kind's reader (``load_record``, Kind role ``record``), after the checks; it
refuses (``bad_prereg``) a document of another shape rather than guess, so a caller
that skipped the checks cannot get a half-read record.

Named things keep the prereg's order (a read-only mapping, name -> record); lists are
tuples; numbers are kept as the file wrote them (an int stays an int, a float a float).
Imports nothing of the referee but its errors and the disclosure's record (audit/core),
so any package may read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from audit.core import disclosure
from audit.core.disclosure import Disclosure
from audit.errors import AuditError


def frozen_mapping(items: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only view of a copy of ``items``, in their order."""
    return MappingProxyType(dict(items))


@dataclass(frozen=True)
class Bundle:
    leaderboard: str  # file name of the leaderboard table
    instances: str  # file name of the instance table
    row_id: str
    instance_key: tuple[str, ...]
    group_by: str

    def table(self, role: str) -> str:
        """The file of a table role (``leaderboard`` or ``instances``)."""
        return {"leaderboard": self.leaderboard, "instances": self.instances}[role]


@dataclass(frozen=True)
class Universe:
    """``denominator: {universe: ...}``: the ids listed (``ids``), or a bundle table of
    them (``file``, ``id_column``) whose ids are not known until it is read."""

    column: str  # the instance column holding each row's id
    missing: str  # as_null or refuse
    ids: tuple[str, ...] | None = None
    file: str | None = None
    id_column: str | None = None


@dataclass(frozen=True)
class Denominator:
    """A rate or mean column's declared denominator: ``fixed`` N or a ``universe``."""

    fixed: int | None = None
    universe: Universe | None = None

    def count(self) -> int:
        """N: the fixed count, or the number of the universe's ids (listed or read)."""
        if self.fixed is not None:
            return self.fixed
        assert self.universe is not None and self.universe.ids is not None
        return len(self.universe.ids)


@dataclass(frozen=True)
class Column:
    """A measured column and its recipe (rate, mean, sum, mean_of_columns, single_value);
    a field the recipe does not have is None or empty."""

    name: str
    recipe: str
    source: str | None = None
    group: str | None = None
    scale: int | None = None  # a rate's scale; a mean's optional one (None: 1)
    denominator: Denominator | None = None  # None: the rows listed
    policies: tuple[str, ...] = ()
    tolerance: str | None = None
    columns: tuple[str, ...] = ()  # a mean_of_columns' parts

    @property
    def mean_scale(self) -> int:
        """The factor a mean is multiplied by: its scale, 1 when it declares none."""
        return 1 if self.scale is None else self.scale

    def policies_or_dash(self) -> list[str]:
        """Its policies, or ``["-"]`` for a column without any (single_value)."""
        return list(self.policies) or ["-"]


@dataclass(frozen=True)
class Policy:
    name: str
    recipe: str  # rate or mean
    nulls: str  # failure, exclude or zero
    description: str
    population: str | None = None  # a mean policy's not_null column, or None: every row


@dataclass(frozen=True)
class Tolerance:
    name: str
    exact_decimals: int | str  # an int, or "published"
    tiers: tuple[float | int, ...]
    tier_unit: str | None = None  # None: absent (published units)


@dataclass(frozen=True)
class Control:
    """An injected perturbation. ``target``: "seeded", or the row ids it names (one for
    flip, shift and nullify, two for a swap); a reorder has neither column nor target."""

    name: str
    kind: str
    column: str | None = None
    target: str | tuple[str, ...] | None = None
    size: int | float | None = None

    @property
    def seeded(self) -> bool:
        return self.target == "seeded"


@dataclass(frozen=True)
class Chance:
    epsilon: float | int
    threshold: float | int


@dataclass(frozen=True)
class Feasibility:
    """A feasibility column: ``over`` is N, or ("column", name), or ("instances", group
    or None)."""

    column: str
    over: int | tuple[str, str | None]
    scale: int
    scores: tuple[int, int]
    decimals: int
    rounding: str


@dataclass(frozen=True)
class Ranks:
    columns: tuple[str, ...]
    alpha: float | int
    correction: str
    seed: int
    draws: int


@dataclass(frozen=True)
class PublisherHash:
    recipe: str
    table: str  # leaderboard or instances
    file: str


@dataclass(frozen=True)
class Amends:
    arm: str
    head: str


@dataclass(frozen=True)
class Prereg:
    version: int
    name: str
    bundle: Bundle
    rounding: str
    nan_in_sources: str
    structural: tuple[str, ...]
    no_antecedent: tuple[str, ...]
    measured: Mapping[str, Column]
    policies: Mapping[str, Policy]
    tolerances: Mapping[str, Tolerance]
    seed: int
    null_draws: int
    chance: Chance
    controls: Mapping[str, Control]
    disclosure: Disclosure
    self_test: tuple[str, ...] = ()
    publisher_hash: PublisherHash | None = None
    feasibility: Mapping[str, Feasibility] = field(default_factory=lambda: frozen_mapping({}))
    ranks: Ranks | None = None
    amends: Amends | None = None

    def leaderboard_columns(self) -> list[str]:
        """Every leaderboard column: structural, no antecedent, measured, in that order."""
        return [*self.structural, *self.no_antecedent, *self.measured]

    def tolerance_of(self, column: str) -> Tolerance | None:
        """The tolerance a column is compared under; None for an exact-text column."""
        spec = self.measured[column]
        return None if spec.tolerance is None else self.tolerances[spec.tolerance]

    def judged(self) -> tuple[str, ...]:
        """The measured columns the census judges, in the prereg's order (either kind's
        record answers this, as the report asks it)."""
        return tuple(self.measured)

    def cell_tolerance(self, row: str, column: str) -> Tolerance | None:
        """The tolerance a cell was compared under (every row of a column alike here);
        None for an exact-text column. Either kind's record answers this."""
        return self.tolerance_of(column)

    def population_of(self, policy: str) -> str | None:
        """The column a mean policy's population requires not null (None: every row, or
        no such policy, as for a single value's ``-``)."""
        pol = self.policies.get(policy)
        return None if pol is None else pol.population

    def universe_tables(self) -> list[tuple[str, str, str]]:
        """(measured column, file, id column) for each universe declared as a table, in
        prereg order."""
        out = []
        for name, col in self.measured.items():
            u = col.denominator.universe if col.denominator else None
            if u is not None and u.file is not None:
                out.append((name, u.file, str(u.id_column)))
        return out

    def with_universe_ids(self, ids: Mapping[str, tuple[str, ...]]) -> Prereg:
        """This prereg with each named column's universe table replaced by its ids."""
        measured = dict(self.measured)
        for name, listed in ids.items():
            col = measured[name]
            assert col.denominator is not None and col.denominator.universe is not None
            universe = replace(col.denominator.universe, ids=tuple(listed))
            measured[name] = replace(col, denominator=replace(col.denominator, universe=universe))
        return replace(self, measured=frozen_mapping(measured))


def _denominator(declared: Any) -> Denominator | None:
    if declared is None or declared == "rows":
        return None
    if "fixed" in declared:
        return Denominator(fixed=declared["fixed"])
    u = declared["universe"]
    ids = u["ids"]
    if isinstance(ids, list):
        return Denominator(universe=Universe(u["column"], u["missing"], ids=tuple(ids)))
    return Denominator(
        universe=Universe(u["column"], u["missing"], file=ids["file"], id_column=ids["column"])
    )


def _column(name: str, s: dict[str, Any]) -> Column:
    return Column(
        name=name,
        recipe=s["recipe"],
        source=s.get("source"),
        group=s.get("group"),
        scale=s.get("scale"),
        denominator=_denominator(s.get("denominator")),
        policies=tuple(s.get("policies", ())),
        tolerance=s.get("tolerance"),
        columns=tuple(s.get("columns", ())),
    )


def _control(name: str, s: dict[str, Any]) -> Control:
    target = s.get("target")
    if isinstance(target, dict):
        target = (target["row_id"],) if "row_id" in target else tuple(target["row_ids"])
    return Control(name, s["kind"], s.get("column"), target, s.get("size"))


def _over(over: Any) -> int | tuple[str, str | None]:
    if isinstance(over, int):
        return over
    if "column" in over:
        return ("column", over["column"])
    return ("instances", (over["instances"] or {}).get("group"))


def _feasibility(name: str, s: dict[str, Any]) -> Feasibility:
    lo, hi = s["scores"]
    return Feasibility(name, _over(s["over"]), s["scale"], (lo, hi), s["decimals"], s["rounding"])


def parse(doc: Any, path: str) -> Prereg:
    """The record of a checked leaderboard prereg; ``bad_prereg`` naming ``path`` if the
    document is not of the checked shape (a key missing or of another type)."""
    try:
        return _parse(doc)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise AuditError("bad_prereg", path, f"not a checked prereg ({err!r})") from None


def _parse(doc: dict[str, Any]) -> Prereg:
    b = doc["bundle"]
    cols = doc["columns"]
    ph = doc.get("publisher_hash")
    ranks = doc.get("ranks")
    amends = doc.get("amends")
    return Prereg(
        version=doc["version"],
        name=doc["name"],
        bundle=Bundle(
            b["leaderboard"], b["instances"], b["row_id"], tuple(b["instance_key"]), b["group_by"]
        ),
        rounding=doc["rounding"],
        nan_in_sources=doc["nan_in_sources"],
        structural=tuple(cols["structural"]),
        no_antecedent=tuple(cols["no_antecedent"]),
        measured=frozen_mapping({n: _column(n, s) for n, s in cols["measured"].items()}),
        policies=frozen_mapping(
            {
                n: Policy(
                    n,
                    s["recipe"],
                    s["nulls"],
                    s["description"],
                    (s.get("population") or {}).get("not_null"),
                )
                for n, s in doc["policies"].items()
            }
        ),
        tolerances=frozen_mapping(
            {
                n: Tolerance(n, s["exact_decimals"], tuple(s["tiers"]), s.get("tier_unit"))
                for n, s in doc["tolerances"].items()
            }
        ),
        seed=doc["seed"],
        null_draws=doc["null_draws"],
        chance=Chance(doc["chance"]["epsilon"], doc["chance"]["threshold"]),
        controls=frozen_mapping({n: _control(n, s) for n, s in (doc["controls"] or {}).items()}),
        disclosure=disclosure.of(doc),
        self_test=tuple(doc.get("self_test", ())),
        publisher_hash=PublisherHash(ph["recipe"], ph["table"], ph["file"]) if ph else None,
        feasibility=frozen_mapping(
            {n: _feasibility(n, s) for n, s in (doc.get("feasibility") or {}).items()}
        ),
        ranks=(
            Ranks(
                tuple(ranks["columns"]),
                ranks["alpha"],
                ranks["correction"],
                ranks["seed"],
                ranks["draws"],
            )
            if ranks
            else None
        ),
        amends=Amends(amends["arm"], amends["head"]) if amends else None,
    )
