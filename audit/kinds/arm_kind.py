"""The arm kinds, registered once: what differs between a leaderboard arm (cells v1,
docs/contract.md) and a trials arm (trials v1, docs/trials-contract.md).

A ``Kind`` names, for its arm: the prereg's schema and loader, what the lock hashes,
the contestants' entry point and run files, the census, the report page and the
certificate, the census record the report reads, and the controls' source. The
program parts are named as ``module:function`` and imported when asked for
(``Kind.entry``), so that reading the registry imports neither a dataframe library
nor a schema library.

Which kind an arm is, its prereg alone decides: no ``kind`` key is a leaderboard
prereg, ``kind: trials`` a trials prereg; the config holds no kind. The readers
below (``kind_of``, ``of_file``, ``load_checked``) are the only code that asks a file
for the kind: the workflow reads it once, before any job (workflow/rules/common.smk), and
hands it to every job as ``--kind <name>`` (``named``); the second seat's verify asks
the annex it verifies (its input) through ``annex_contract``, which its caller hands
it. tests/test_kind_registry.py fails on any other module that asks.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import AuditError


@dataclass(frozen=True)
class Kind:
    """One arm kind. ``entries`` maps a part's role to its ``module:function``."""

    name: str  # as --kind names it
    contract: str  # the contract's version, as the report and certificate name it
    schema: str  # the prereg's schema, workflow/schemas/<schema>.schema.yaml
    contestant: tuple[str, ...]  # after `python -m impl_<x>`: the contestant's entry
    run_files: tuple[str, ...]  # every run's files (<name>.csv), before optional ones
    controls: str  # what a control reads and perturbs: "bundle" (--bundle) or "table"
    controls_compared: tuple[str, ...]  # the run files a control's rerun writes and compares
    closing: tuple[str, ...]  # what the end of a run prints without a report, after census.txt
    rule: tuple[str, str]  # what the method calls one declared aggregation, and several
    instances: str  # what the contestants recompute from, as the report names it
    entries: tuple[tuple[str, str], ...]  # (role, "module:function"), see ROLES

    def entry(self, role: str) -> Callable[..., Any]:
        """The registered program part for ``role`` (one of ROLES), imported now."""
        module, _, attr = dict(self.entries)[role].partition(":")
        return getattr(importlib.import_module(module), attr)

    def locked_record(self, path: str | Path) -> Any:
        """The locked prereg's frozen record (role ``parse``) from its bytes read strictly,
        its checks not run again: the lock ran them on these bytes and hashed them. For a
        job that reads little of it (the agreement's files, the controls' table), as it
        read the document before; a shape the record does not take is ``bad_prereg``."""
        from audit.core.strict_yaml import read_strict

        return self.entry("parse")(read_strict(path), str(path))

    def contestant_command(self, impl: str) -> list[str]:
        """The arguments of a contestant's entry: ``-m impl_<impl>`` [``trials``]."""
        return ["-m", f"impl_{impl}", *self.contestant]


# What each kind registers (Kind.entries): the prereg's loader and checks and what the
# report reads of it, the lock (what it hashes), the census, the report page, the
# certificate, and the census record the report and the certificate read.
ROLES = (
    "prereg",  # path -> the checked prereg
    "record",  # path -> the checked prereg parsed once into its frozen record
    "parse",  # (doc, path) -> the frozen record of a prereg its caller has read and checked
    "check",  # (doc, path): the kind's schema and logic
    "bundle_tables",  # record -> further tables of the bundle the prereg names (the lock hashes)
    "lock",
    "census",
    "report",
    "certificate",
    "census_record",
)

LEADERBOARD = Kind(
    name="leaderboard",
    contract="cells v1",
    schema="prereg",
    contestant=(),
    run_files=("cells", "census", "reproduce", "chance", "nulls", "null_hist"),
    controls="bundle",
    controls_compared=("cells", "census", "reproduce"),
    closing=("controls.csv",),
    rule=("policy", "policies"),
    instances="instance table",
    entries=(
        ("prereg", "audit.cells.prereg:load"),
        ("record", "audit.cells.prereg:load_record"),
        ("parse", "audit.cells.record:parse"),
        ("check", "audit.cells.prereg:check"),
        ("bundle_tables", "audit.cells.universe:record_files"),
        ("lock", "audit.lock.cells:lock"),
        ("census", "audit.cells.census:summarise"),
        ("report", "audit.report.leaderboard:build"),
        ("certificate", "audit.report.certificate:render"),
        ("census_record", "audit.cells.summary:CensusSummary"),
    ),
)

TRIALS = Kind(
    name="trials",
    contract="trials v1",
    schema="trials-prereg",
    contestant=("trials",),
    run_files=(
        "tasks",
        "entries",
        "cells",
        "census",
        "recovery",
        "recovery_rows",
        "nulls",
        "null_hist",
        "runs",
        "pass_k",
        "pass_k_tasks",
        "reproduce",  # the null's table (section 9.1), written by every recompute
    ),
    controls="table",
    controls_compared=("entries", "tasks"),
    closing=("compare/compare.txt",),
    rule=("rule", "rules"),
    instances="trials",
    entries=(
        ("prereg", "audit.trials.prereg:load"),
        ("record", "audit.trials.prereg:load_record"),
        ("parse", "audit.trials.record:parse"),
        ("check", "audit.trials.prereg:check"),
        ("bundle_tables", "audit.trials.prereg:bundle_tables"),
        ("lock", "audit.lock.trials:lock"),
        ("census", "audit.trials.census:summarise"),
        ("report", "audit.report.trials:build"),
        ("certificate", "audit.report.trials:certificate"),
        ("census_record", "audit.trials.summary:TrialsCensusSummary"),
    ),
)

KINDS = {k.name: k for k in (LEADERBOARD, TRIALS)}
NAMES = tuple(KINDS)  # the choices of every command's --kind


def named(name: str) -> Kind:
    """The kind a job was handed (``--kind``); bad_args for a name no kind has."""
    try:
        return KINDS[name]
    except KeyError:
        raise AuditError("bad_args", "--kind", f"{name!r} is not a kind ({', '.join(NAMES)})")


# The readers: the only code that asks a prereg for its kind.


def kind_of(doc: dict[str, Any], path: str) -> Kind:
    """The kind of a prereg read strictly; bad_prereg for any other ``kind``."""
    kind = doc.get("kind")
    if kind is None:
        return LEADERBOARD
    if kind == TRIALS.name:
        return TRIALS
    raise AuditError(
        "bad_prereg",
        path,
        f"kind {kind!r} is not a kind: leave it out for a leaderboard prereg (cells v1),"
        " or write kind: trials (trials v1)",
    )


def of_file(path: str | Path) -> Kind:
    """The kind of the prereg in this file (read strictly), or its AuditError."""
    from audit.cells.prereg import load_yaml

    return kind_of(load_yaml(path), str(path))


def annex_contract(path: str | Path) -> str:
    """The contract of an annex's locked prereg, once that prereg is read and checked by
    its own kind (an AuditError when it does not hold): what the seal's verify is handed,
    its input being a stranger's annex."""
    kind = of_file(path)
    kind.entry("prereg")(path)
    return kind.contract


def load_checked(path: str | Path) -> tuple[Kind, dict[str, Any]]:
    """The prereg read once, its kind, and the checks of that kind's lock, in order."""
    from audit.cells.prereg import load_yaml, refuse_undecided

    where = str(path)
    doc = load_yaml(path)
    kind = kind_of(doc, where)
    refuse_undecided(
        doc, where, kind.schema, missing_alone=False
    )  # a draft names what it leaves open
    kind.entry("check")(doc, where)
    return kind, doc


def add_argument(p: Any) -> None:
    """A command's ``--kind``: the arm's kind, as the workflow hands it to every job."""
    p.add_argument(
        "--kind",
        required=True,
        choices=NAMES,
        help="the arm's kind, as the lock found it (the workflow passes it to every job)",
    )
