"""A trials arm's lock: the prereg checked, the bundle hashed, the lock's events.

Registry source: the registry table and the leaderboard. Trials source: every
regular file under the jobs root (code-point order of relative paths), then the
adapter's ``trials.parquet`` (trials contract section 2.6), then the
leaderboard, byte-copied into the assembled bundle folder the contestants read.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from audit.bundles.digest import table_digest
from audit.cells.prereg import refuse_undecided
from audit.core import disclosure
from audit.errors import AuditError
from audit.files import file_blake3, regular_files
from audit.lock import amends
from audit.lock.shared import Prereg, file_record, locked_event, write_lock
from audit.seal import ledger
from audit.seal.lock_record import check_seat_jobs, check_seat_table, read_lock
from audit.trials import preflight_source
from audit.trials import prereg as trials_prereg
from audit.trials.record import parse
from controls import before_lock


def _table(path: Path, name: str, types: dict[str, str] | None = None) -> dict[str, Any]:
    """The file's record and its content digest (a CSV under its declared types)."""
    return {**file_record(str(path), name), **table_digest(str(path), types)}


def _check_against(expect_lock: str, record: dict[str, Any], bundle: str) -> None:
    """A second seat's bundle must hold the content the first seat locked (its lock.json's
    record): each table, and a trials source's jobs files."""
    first = read_lock(expect_lock)
    for role, t in record["bundle"].items():
        where = str(Path(bundle) / t["file"])
        check_seat_table(expect_lock, first, role, where, t["content_digest"])
    if record.get("jobs"):
        check_seat_jobs(expect_lock, first, bundle, record["jobs"]["files"])


def lock(
    prereg: Prereg,
    bundle: str,
    out_dir: str,
    events_path: str,
    results: str,
    assembled: str | None = None,
    expect_lock: str | None = None,
    judged: bool = False,
) -> dict[str, Any]:
    """Refuse a prereg its schema or logic refuses; else write the lock and the ledger.

    ``prereg``: as read_prereg read it (its blake3 the config's). ``results``: the
    folder holding every arm, where an amendment's parent is sealed. ``assembled``:
    a trials source's folder holding the adapter's trials.parquet. ``expect_lock``:
    a first seat's lock.json, whose bundle content this bundle must match. ``judged``:
    the workflow's preflight judged the tables in this run (shipped tables; a trials
    source's table adapted in memory, its jobs folder within its bound); otherwise (a
    larger folder, the command run alone) the lock judges them with the same checks
    (audit/trials/preflight_source.py), then its controls on the table judged
    (controls/before_lock.py), once it has hashed them (its own reading, bounded), before
    it copies or writes anything."""
    prereg_path, doc = prereg.path, prereg.doc
    refuse_undecided(doc, prereg_path, "trials-prereg")
    trials_prereg.check(doc, prereg_path)
    rec = parse(doc, prereg_path)  # checked: read once into its record, by attribute below
    if not Path(bundle).is_dir():
        raise AuditError("missing_file", bundle, "bundle folder does not exist")
    src = rec.source
    tables: dict[str, dict[str, Any]] = {}
    hashed: list[tuple[str, str, dict[str, object]]] = []
    jobs_digests: list[dict[str, str]] = []
    record: dict[str, Any] = {
        "format": "secondseat-lock-v1",
        "kind": "trials",
        "prereg": {"blake3": prereg.blake3, "name": rec.name},
    }
    lb = rec.leaderboard
    types = None if lb is None or lb.types is None else dict(lb.types)  # a .csv board's
    board = None if lb is None else Path(bundle) / lb.table  # before anything is written
    disclosure.check_leaderboard(
        rec.disclosure, prereg_path, board, list(lb.row_key) if lb else [], types
    )
    if not rec.trials_source:  # a registry table
        tables["registry"] = _table(Path(bundle) / src.table, src.table)
        hashed.append(("bundle_hashed", str(Path(bundle) / src.table), {"role": "registry"}))
        read_from = Path(bundle)
    else:
        if assembled is None:
            raise AuditError("bad_args", prereg_path, "a trials source needs --assembled")
        jobs = str(src.jobs)  # a trials source names its jobs folder
        root = Path(bundle) / jobs
        if not root.is_dir():
            raise AuditError("missing_file", str(root), "jobs directory does not exist")
        files = [{"path": rel, "blake3": file_blake3(root / rel)} for rel in regular_files(root)]
        record["jobs"] = {"root": jobs, "files": files}
        jobs_digests = [{"path": f"{jobs}/{f['path']}", "blake3": f["blake3"]} for f in files]
        hashed += [("bundle_hashed", str(root / f["path"]), {"role": "jobs_file"}) for f in files]
        read_from = Path(assembled)
        tables["trials"] = _table(read_from / "trials.parquet", "trials.parquet")
        hashed.append(("bundle_hashed", str(read_from / "trials.parquet"), {"role": "trials"}))
    if lb is not None:
        tables["leaderboard"] = _table(Path(bundle) / lb.table, lb.table, types)
    if not judged:  # each table read (bounded) as it was hashed; nothing copied or written yet
        table = preflight_source.check_assembled(rec, bundle, assembled)
        if table is not None:  # then the controls on the table judged (preflight's too)
            before_lock.check_trials(rec, table)
    if lb is not None:
        lb_src = Path(bundle) / lb.table
        if read_from != Path(bundle):
            dst = read_from / lb.table
            shutil.copyfile(lb_src, dst)
            if file_blake3(dst) != tables["leaderboard"]["blake3"]:
                raise AuditError("bundle_changed", str(lb_src), "changed while it was copied")
        hashed.append(("bundle_hashed", str(lb_src), {"role": "leaderboard"}))
    for _, subject, extra in hashed:
        role = str(extra["role"])
        if role in tables:
            extra["content_digest"] = tables[role]["content_digest"]
    record["bundle"] = tables
    if expect_lock is not None:
        _check_against(expect_lock, record, bundle)
    parent = amends.parent_lock(rec.amends, results)  # an amendment: the parent's content
    if parent is not None:
        amends.check_content(parent[0], parent[1], tables)
        if "jobs" in record or parent[1].jobs is not None:
            amends.check_jobs(parent[0], parent[1], bundle, record.get("jobs", {}).get("files"))
        assert rec.amends is not None  # a parent: an amendment
        record["amends"] = amends.as_written(rec.amends)
    amendment = amends.event(rec.amends, results)
    write_lock(prereg, out_dir, record)
    digest = {str(Path(bundle) / f["path"]): f["blake3"] for f in jobs_digests}
    for t in tables.values():
        digest[str(read_from / t["file"])] = digest[str(Path(bundle) / t["file"])] = t["blake3"]
    records = [*([amendment] if amendment is not None else [])]  # an amendment's first event
    records.append(locked_event(prereg))
    for event, subject, extra in hashed:
        records.append(
            {
                "event": event,
                "subject": subject,
                "blake3": digest[subject],
                "time": ledger.now(),
                **extra,
            }
        )
    ledger.write_events(events_path, records)
    return record
