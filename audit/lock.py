"""The DAG's root: check the prereg's hash, hash the bundle, start the ledger."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from audit import hf_source, ledger, prereg
from audit.digest import table_digest
from audit.errors import AuditError
from audit.files import file_blake3, write_atomic


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
                f"{w['content_digest']} (file blake3 {t['blake3']} vs {w['blake3']})",
            )
        if t["blake3"] != w["blake3"]:
            print(
                f"note: {Path(bundle) / str(t['file'])}: same content as locked, other bytes "
                f"(blake3 {t['blake3']} vs {w['blake3']}); a different parquet writer"
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


def write_lock(prereg_path: str, actual: str, out_dir: str, record: dict) -> None:
    """Copy the prereg (refusing one changed since it was hashed) and write lock.json."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / ".prereg.yaml.tmp"
    shutil.copyfile(prereg_path, tmp)
    if file_blake3(tmp) != actual:
        tmp.unlink()
        raise AuditError("prereg_changed", prereg_path, "file changed while it was being locked")
    tmp.replace(out / "prereg.yaml")
    write_atomic(out / "lock.json", json.dumps(record, indent=2, sort_keys=True) + "\n")


def lock(
    prereg_path: str,
    expected: str,
    bundle: str,
    out_dir: str,
    ledger_path: str,
    expect_lock: str | None = None,
) -> dict:
    """Refuse a prereg whose blake3 is not ``expected``; else write the lock and the ledger.

    ``expect_lock``: a first seat's lock.json, whose bundle content this bundle must match.
    """
    actual = prereg_blake3(prereg_path, expected)
    prereg.refuse_undecided(prereg.load_yaml(prereg_path), prereg_path)
    doc = prereg.load(prereg_path)
    if not Path(bundle).is_dir():
        raise AuditError("missing_file", bundle, "bundle folder does not exist")
    tables: dict[str, dict[str, object]] = {}
    for role in ("leaderboard", "instances"):
        path = str(Path(bundle) / doc["bundle"][role])
        tables[role] = {
            "file": doc["bundle"][role],
            "blake3": file_blake3(path),
            **table_digest(path),
        }
    if expect_lock is not None:
        _check_against(expect_lock, tables, bundle)
    source = hf_source.check(bundle)  # a bundle fetched from the Hub: its record, rehashed
    record = {
        "format": "secondseat-lock-v1",
        "prereg": {"blake3": actual, "name": doc["name"]},
        "bundle": tables,
    }
    if "publisher_hash" in doc:
        from audit.publisher_hash import check as publisher_check

        spec = doc["publisher_hash"]
        record["publisher_hash"] = publisher_check(spec, bundle, doc["bundle"][spec["table"]])
        print(f"publisher hash ({spec['recipe']}): {record['publisher_hash']['status']}")
    if source is not None:
        record["source"] = source
    write_lock(prereg_path, actual, out_dir, record)
    ledger.start(
        ledger_path,
        [
            ("prereg_locked", prereg_path, {"expected_blake3": expected}),
            *[
                (
                    "bundle_hashed",
                    str(Path(bundle) / t["file"]),  # type: ignore[operator]
                    {"role": role, "content_digest": t["content_digest"]},
                )
                for role, t in tables.items()
            ],
            *(
                [("bundle_fetched", str(Path(bundle) / hf_source.RECORD), source)]
                if source is not None
                else []
            ),
        ],
    )
    return record
