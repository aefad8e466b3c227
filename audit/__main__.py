"""Command line of the referee: ``python -m audit <command> ...``.

The subcommands are a table (audit/commands/__init__.py), one module each.
"""

from __future__ import annotations

import sys

from audit.commands import COMMANDS
from audit.commands.table import main as table_main


def main(argv: list[str] | None = None) -> int:
    return table_main(argv, "python -m audit", __doc__, COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
