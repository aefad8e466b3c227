"""A command line built from a table of subcommand modules (audit.commands)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Mapping

from audit.errors import AuditError, disk_full, report


def build(prog: str, description: str, commands: Mapping[str, str]) -> argparse.ArgumentParser:
    """One subparser per entry of commands (name -> module), in the table's order."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, path in commands.items():
        mod = importlib.import_module(path)
        p = sub.add_parser(
            name,
            help=mod.HELP,
            description=mod.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        mod.add_arguments(p)
        p.set_defaults(command_run=mod.run)
    return ap


def chosen(argv: list[str], commands: Mapping[str, str]) -> Mapping[str, str]:
    """The table a command line needs: the named subcommand's entry alone when argv starts
    with one (its parser, help and errors are the same words), else every entry (the
    command list, an unknown command). Each entry's module is imported to build its
    parser, with what that module imports: a job pays for its own subcommand only."""
    if argv and argv[0] in commands:
        return {argv[0]: commands[argv[0]]}
    return commands


def main(argv: list[str] | None, prog: str, description: str, commands: Mapping[str, str]) -> int:
    """Parse argv, run the chosen subcommand; a refusal is one line and exit 2."""
    argv = sys.argv[1:] if argv is None else argv
    args = build(prog, description, chosen(argv, commands)).parse_args(argv)
    try:
        return args.command_run(args)
    except AuditError as err:
        return report(err)
    except OSError as err:
        full = disk_full(err)
        if full is None:
            raise
        return report(full)
