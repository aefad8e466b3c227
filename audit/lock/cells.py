"""A leaderboard arm's lock: the prereg checked, the bundle's two tables hashed, the lock's events."""

from __future__ import annotations

from pathlib import Path

from audit.bundles import hf_source
from audit.bundles.digest import table_digest
from audit.cells import bundle_checks, universe
from audit.cells import prereg as cells_prereg
from audit.cells.record import parse
from audit.core import disclosure
from audit.errors import AuditError
from audit.lock import amends
from audit.lock.shared import Prereg, file_record, locked_event, write_lock
from audit.seal import ledger
from audit.seal.lock_record import check_seat_table, read_lock
from controls import before_lock


def _check_against(expect_lock: str, tables: dict[str, dict[str, object]], bundle: str) -> None:
    """A second seat's bundle must hold the content the first seat locked (its lock.json's
    record; a table it did not lock is other content too)."""
    first = read_lock(expect_lock)
    for role, t in tables.items():
        where = str(Path(bundle) / str(t["file"]))
        check_seat_table(expect_lock, first, role, where, t["content_digest"])


def lock(
    prereg: Prereg,
    bundle: str,
    out_dir: str,
    events_path: str,
    results: str,
    expect_lock: str | None = None,
    judged: bool = False,
) -> dict:
    """Refuse a prereg its schema or logic refuses; else write the lock and the ledger.

    ``prereg``: as read_prereg read it (its blake3 the config's). ``results``: the
    folder holding every arm, where an amendment's parent is sealed. ``expect_lock``:
    a first seat's lock.json, whose bundle content this bundle must match. ``judged``:
    the workflow's preflight judged this bundle's tables in this run (a shipped bundle);
    otherwise (a bundle a rule builds, the demo's or a Hub fetch, not there at preflight;
    the command run alone) the lock judges them with the same checks
    (audit/cells/bundle_checks.py), then its controls' targets (controls/before_lock.py),
    once its own reading of each table passed, before it writes anything.
    """
    prereg_path, doc = prereg.path, prereg.doc
    cells_prereg.refuse_undecided(doc, prereg_path, "prereg")
    cells_prereg.check(doc, prereg_path)
    rec = parse(doc, prereg_path)  # checked: read once into its record, by attribute below
    if not Path(bundle).is_dir():
        raise AuditError("missing_file", bundle, "bundle folder does not exist")
    tables: dict[str, dict[str, object]] = {}
    roles = {role: rec.bundle.table(role) for role in ("leaderboard", "instances")}
    # a universe declared as a table is a bundle file like the others (audit/cells/universe.py)
    roles |= {f"{universe.ROLE}{name}": name for name in universe.record_files(rec)}
    for role, name in roles.items():
        path = str(Path(bundle) / name)
        if role.startswith(universe.ROLE) and not Path(path).is_file():
            raise AuditError(
                "missing_file", path, "no such regular file (a universe table the prereg names)"
            )
        tables[role] = {
            **file_record(path, name),
            **table_digest(path),
        }
    source = hf_source.check(bundle)  # a bundle fetched from the Hub: its record, rehashed
    # Each table read (bounded) as it is hashed (a fetched one checked against the Hub's
    # record), then, unless preflight judged them in this run, what both contestants
    # would refuse, in their order and preflight's line, and the targets the controls'
    # own code chooses (controls/before_lock.py, preflight's too), before anything is
    # written (a bundle a rule builds is not there at preflight); then a universe table's ids
    if not judged:
        bundle_checks.check(rec, prereg_path, bundle)
        before_lock.check_leaderboard(rec, bundle)
    universe.check_record(rec, bundle)
    lb = Path(bundle) / rec.bundle.leaderboard
    disclosure.check_leaderboard(rec.disclosure, prereg_path, lb, [rec.bundle.row_id], None)
    if expect_lock is not None:
        _check_against(expect_lock, tables, bundle)
    parent = amends.parent_lock(rec.amends, results)  # an amendment: the parent's content
    if parent is not None:
        amends.check_content(parent[0], parent[1], tables)
    amendment = amends.event(rec.amends, results)
    record = {
        "format": "secondseat-lock-v1",
        "prereg": {"blake3": prereg.blake3, "name": rec.name},
        "bundle": tables,
    }
    if rec.publisher_hash is not None:
        from audit.bundles.publisher_hash import check as publisher_check

        ph = rec.publisher_hash
        spec = {"recipe": ph.recipe, "table": ph.table, "file": ph.file}  # the block, as declared
        record["publisher_hash"] = publisher_check(spec, bundle, rec.bundle.table(ph.table))
        print(f"publisher hash ({ph.recipe}): {record['publisher_hash']['status']}")
    if source is not None:
        record["source"] = source
    if rec.amends is not None:
        record["amends"] = amends.as_written(rec.amends)
    write_lock(prereg, out_dir, record)
    ledger.write_events(
        events_path,
        [
            *([amendment] if amendment is not None else []),  # an amendment's first event
            locked_event(prereg),
            *[
                {
                    "event": "bundle_hashed",
                    "subject": str(Path(bundle) / str(t["file"])),
                    "blake3": t["blake3"],
                    "time": ledger.now(),
                    "role": role,
                    "content_digest": t["content_digest"],
                }
                for role, t in tables.items()
            ],
            *(
                [ledger.record("bundle_fetched", str(Path(bundle) / hf_source.RECORD), source)]
                if source is not None
                else []
            ),
        ],
    )
    return record
