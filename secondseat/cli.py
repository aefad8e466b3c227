"""The ``secondseat`` console command: the referee's subcommands and ``audit``."""

from __future__ import annotations

from audit.commands import COMMANDS
from audit.commands.table import main as table_main

DESCRIPTION = (
    "A preregistered audit of a published leaderboard. `secondseat audit` runs the "
    "whole workflow on a bundle; the other commands are the referee's own steps and "
    "tools, the same as `python -m audit <command>` in a clone (docs/cli.md)."
)
TABLE = {"audit": "secondseat.workflow_run", **COMMANDS}


def main(argv: list[str] | None = None) -> int:
    return table_main(argv, "secondseat", DESCRIPTION, TABLE)
