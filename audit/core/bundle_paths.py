"""The paths a prereg names in its bundle folder, each inside it: no absolute path, no
`..` component. The one rule both kinds of prereg keep (audit/cells/prereg.py and
audit/trials/prereg.py check_logic, the lock's checks, which preflight makes before any
job): a leaderboard prereg's bundle.leaderboard, bundle.instances, a universe table's
file and publisher_hash.file; a trials prereg's source.table, source.jobs and
leaderboard.table. The rule is on the text the prereg writes: a symbolic link inside
the folder is followed, as the lock follows it (a trials source's jobs folder may be
one, docs/trials-contract.md 2.1)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import PurePosixPath

from audit.errors import AuditError


def check_inside(named: Iterable[tuple[str, str]], bad: Callable[[str], AuditError]) -> None:
    """bad_prereg (through ``bad``) naming the first key, in the order given, whose path
    is absolute or climbs out of the bundle folder through a `..` component."""
    for key, value in named:
        if value.startswith("/"):
            raise bad(f"{key} {value!r} is an absolute path: it must lie inside the bundle folder")
        if ".." in PurePosixPath(value).parts:
            raise bad(f"{key} {value!r} has a '..' component: it must lie inside the bundle folder")
