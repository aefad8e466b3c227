"""The referee's command line is a table of subcommands, each argument explained."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import subprocess
import sys

import pytest

from audit.__main__ import main
from audit.commands import COMMANDS
from audit.commands.table import build, chosen
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


def _said(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            parser.parse_args(argv)
            code: object = "parsed"
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_subcommand_built_alone_says_what_the_whole_table_says(name: str) -> None:
    # The command line of a job builds its own subcommand only (chosen): its help, its
    # usage and its errors must be the words the whole table's parser prints.
    for argv in ([name, "-h"], [name], [name, "--no-such-option"], [name, "x", "y", "z"]):
        whole = _said(build("python -m audit", "d", COMMANDS), argv)
        alone = _said(build("python -m audit", "d", chosen(argv, COMMANDS)), argv)
        assert alone == whole, argv
    assert list(chosen([name, "--help"], COMMANDS)) == [name]


def test_the_command_list_and_an_unknown_command_build_the_whole_table() -> None:
    for argv in ([], ["-h"], ["--help", "census"], ["no-such-command"]):
        assert chosen(argv, COMMANDS) == COMMANDS


def test_a_job_imports_only_its_own_subcommand() -> None:
    # what `python -m audit same-runs ...` imports before it runs, in a fresh process
    script = (
        "import sys\n"
        "from audit.commands import COMMANDS\n"
        "from audit.commands.table import build, chosen\n"
        "build('python -m audit', '', chosen(sys.argv[1:], COMMANDS))\n"
        "print(' '.join(m for m in sys.modules if m.startswith('audit.commands.')))\n"
    )

    def commands_imported(*argv: str) -> set[str]:
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True,
                              text=True, cwd=ROOT, check=True)  # fmt: skip
        return set(done.stdout.split())

    assert commands_imported("same-runs", "a", "b") == {
        "audit.commands.table",
        "audit.commands.same_runs",
    }
    # the check can see the others: the command list imports every module
    assert commands_imported("no-such-command") >= {
        f"audit.commands.{m.rsplit('.', 1)[1]}" for m in COMMANDS.values()
    }
