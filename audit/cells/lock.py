"""The DAG's root: check the prereg's hash, hash the bundle, write the lock's events."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from audit.bundles import hf_source
from audit.bundles.digest import table_digest
from audit.cells import prereg
from audit.core import disclosure
from audit.errors import AuditError
from audit.files import file_blake3, file_digests, write_atomic
from audit.seal import amends, ledger


def _check_against(expect_lock: str, tables: dict[str, dict[str, object]], bundle: str) -> None:
    """A second seat's bundle must hold the content the first seat locked."""
    want = json.loads(Path(expect_lock).read_text(encoding="utf-8"))["bundle"]
    for role, t in tables.items():
        w = want[role]
        if t["content_digest"] != w["content_digest"]:
            raise AuditError(
                "bundle_changed",
                str(Path(bundle) / str(t["file"])),
                f"content digest is {t['content_digest']} but {expect_lock} locked "
                f"{w['content_digest']}",
            )


def prereg_blake3(prereg_path: str, expected: str) -> str:
    """The prereg's blake3, which must be ``expected`` (prereg_changed otherwise)."""
    actual = file_blake3(prereg_path)
    if actual != expected:
        raise AuditError(
            "prereg_changed",
            prereg_path,
            f"blake3 is {actual} but the config expects {expected}; "
            "a changed method is a new arm (an amendment), not an edit",
        )
    return actual


def split_files(tables: dict[str, dict]) -> tuple[dict[str, dict], dict[str, dict]]:
    """(content, files): what the content is, and the bytes that carried it.

    lock.json records content (digests any parquet writer gives alike); files.json
    the files' own blake3 and sha256, which depend on the writer, and which every
    job that reads a bundle file checks its bytes against (docs/seal.md)."""
    content: dict[str, dict] = {}
    files: dict[str, dict] = {}
    for role, t in tables.items():
        content[role] = {k: v for k, v in t.items() if k not in ("blake3", "sha256", "bytes")}
        files[role] = {k: t[k] for k in ("file", "blake3", "sha256", "bytes") if k in t}
    return content, files


def file_record(path: str, name: str) -> dict[str, object]:
    """A bundle file's name and digests, hashed in one pass over its bytes."""
    return {"file": name, **file_digests(path)}


def write_lock(prereg_path: str, actual: str, out_dir: str, record: dict) -> None:
    """Copy the prereg (refusing one changed since it was hashed); write lock.json, files.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / ".prereg.yaml.tmp"
    shutil.copyfile(prereg_path, tmp)
    if file_blake3(tmp) != actual:
        tmp.unlink()
        raise AuditError("prereg_changed", prereg_path, "file changed while it was being locked")
    tmp.replace(out / "prereg.yaml")
    content, files = split_files(record["bundle"])
    body = {**record, "bundle": content}
    write_atomic(out / "files.json", json.dumps(files, indent=2, sort_keys=True) + "\n")
    write_atomic(out / "lock.json", json.dumps(body, indent=2, sort_keys=True) + "\n")


def lock(
    prereg_path: str,
    expected: str,
    bundle: str,
    out_dir: str,
    events_path: str,
    expect_lock: str | None = None,
) -> dict:
    """Refuse a prereg whose blake3 is not ``expected``; else write the lock and the ledger.

    ``expect_lock``: a first seat's lock.json, whose bundle content this bundle must match.
    """
    actual = prereg_blake3(prereg_path, expected)
    prereg.refuse_undecided(prereg.load_yaml(prereg_path), prereg_path, "prereg")
    doc = prereg.load(prereg_path)
    if not Path(bundle).is_dir():
        raise AuditError("missing_file", bundle, "bundle folder does not exist")
    tables: dict[str, dict[str, object]] = {}
    for role in ("leaderboard", "instances"):
        path = str(Path(bundle) / doc["bundle"][role])
        tables[role] = {
            **file_record(path, doc["bundle"][role]),
            **table_digest(path),
        }
    if disclosure.relations(doc):
        lb = str(Path(bundle) / doc["bundle"]["leaderboard"])
        ids = disclosure.leaderboard_ids(lb, [doc["bundle"]["row_id"]], None)
        disclosure.check_rows(doc, prereg_path, ids, doc["bundle"]["leaderboard"])
    if expect_lock is not None:
        _check_against(expect_lock, tables, bundle)
    parent = amends.parent_lock(doc, out_dir)  # an amendment: the parent's bundle content
    if parent is not None:
        amends.check_content(parent[0], parent[1], tables)
    amendment = amends.event(doc, out_dir)
    source = hf_source.check(bundle)  # a bundle fetched from the Hub: its record, rehashed
    record = {
        "format": "secondseat-lock-v1",
        "prereg": {"blake3": actual, "name": doc["name"]},
        "bundle": tables,
    }
    if "publisher_hash" in doc:
        from audit.bundles.publisher_hash import check as publisher_check

        spec = doc["publisher_hash"]
        record["publisher_hash"] = publisher_check(spec, bundle, doc["bundle"][spec["table"]])
        print(f"publisher hash ({spec['recipe']}): {record['publisher_hash']['status']}")
    if source is not None:
        record["source"] = source
    if amendment is not None:
        record["amends"] = amends.declared(doc)
    write_lock(prereg_path, actual, out_dir, record)
    ledger.write_events(
        events_path,
        [
            *([amendment] if amendment is not None else []),  # an amendment's first event
            ledger.record("prereg_locked", prereg_path, {"expected_blake3": expected}),
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
