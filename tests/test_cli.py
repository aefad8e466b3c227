"""The referee's command line is a table of subcommands, each argument explained."""

from __future__ import annotations

import argparse
import re

import pytest

from audit.__main__ import main
from audit.commands import COMMANDS
from audit.commands.table import build
from tests.conftest import ROOT, run_audit


def _subparsers(ap: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in ap._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_argument_of_every_subcommand_has_help(name: str) -> None:
    parser = _subparsers(build("python -m audit", "", COMMANDS))[name]
    assert parser.description, f"{name}: no description"
    unexplained = [
        a.dest
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction) and not (a.help or "").strip()
    ]
    assert unexplained == [], f"{name}: arguments without help: {unexplained}"


def test_the_workflow_calls_only_subcommands_of_the_table() -> None:
    # Every `python -m audit <sub>` the rules run: the same names as the table's
    # (found by reading the rules, not the table, so a renamed command fails here).
    text = "\n".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    used = set(re.findall(r"python -m audit ([a-z][a-z-]*)", text))
    assert used, "no `python -m audit <sub>` found in workflow/rules"
    assert used - set(COMMANDS) == set()


def test_an_unknown_subcommand_is_refused_by_argparse() -> None:
    with pytest.raises(SystemExit) as e:
        main(["no-such-command"])
    assert e.value.code == 2


def test_a_refusal_from_a_subcommand_is_one_line_and_exit_2(tmp_path) -> None:
    # adapt-trials without a jobs directory: the subcommand's own check (AuditError).
    res = run_audit("adapt-trials", "--out", tmp_path / "out")
    assert res.code == 2
    assert res.stderr.strip().splitlines() == [
        "error[bad_args]: adapt-trials: name the jobs directory"
    ]
    assert not (tmp_path / "out").exists()


def test_a_subcommand_runs_through_the_table(tmp_path) -> None:
    # demo-bundle writes the embedded bundle; the file names are the demo prereg's.
    res = run_audit("demo-bundle", "--out", tmp_path / "b")
    assert res.code == 0, res.stderr
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [
        "instances.parquet",
        "leaderboard.parquet",
    ]
