"""A second seat's check of an annex: hashes, ledger chain, anchored head, schemas."""

from __future__ import annotations

import json
from pathlib import Path

from audit import ledger, prereg, trials_prereg
from audit.certificate import ANCHOR_PREFIX
from audit.errors import AuditError
from audit.files import file_blake3

HEADERS = {
    "cells.csv": "row_id,column,kind,policy,published,recomputed,abs_diff,tier",
    "census.csv": "row_id,column,class,best_tier,policies,min_abs_diff",
    "reproduce.csv": "column,row_id,reproduced_by",
    "nulls.csv": "column,observed,null_mean,null_sd,null_max,draws_ge_observed,draws,p",
    "null_hist.csv": "column,count,draws",
}
# Not in the manifest: the manifest itself, the ledger (its chain and the seal
# cover it) and the marker Snakemake leaves in a directory output.
UNLISTED = {"manifest.json", "ledger.jsonl", ".snakemake_timestamp"}


def _manifest(annex: Path) -> dict:
    if not annex.is_dir():
        raise AuditError("missing_file", str(annex), "annex folder does not exist")
    path = annex / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AuditError("missing_file", str(path), "no manifest") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise AuditError("unreadable", str(path), "not valid JSON") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise AuditError("unreadable", str(path), "not a secondseat manifest")
    return manifest


def _files(annex: Path, manifest: dict) -> list[str]:
    problems = []
    for rel, digest in sorted(manifest["files"].items()):
        p = annex / rel
        if not p.is_file():
            problems.append(f"{p}: missing (listed in the manifest)")
        elif file_blake3(p) != digest:
            problems.append(f"{p}: changed (blake3 {file_blake3(p)}, manifest says {digest})")
    present = {str(p.relative_to(annex)) for p in annex.rglob("*") if p.is_file()}
    for rel in sorted(present - set(manifest["files"]) - UNLISTED):
        problems.append(f"{annex / rel}: added (not in the manifest)")
    return problems


def _entries(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            out.append({})
    return out


def _ledger(annex: Path, manifest: dict, head: str | None) -> list[str]:
    path = annex / "ledger.jsonl"
    if not path.is_file():
        return [f"{path}: missing"]
    problems = ledger.verify(path, rehash=False)
    entries = _entries(path)
    last = entries[-1] if entries else {}
    if last.get("event") != "annex_sealed":
        problems.append(f"{path}: does not end with annex_sealed (tail cut?)")
    elif last.get("blake3") != file_blake3(annex / "manifest.json"):
        problems.append(
            f"{annex / 'manifest.json'}: changed after the annex was sealed "
            f"(ledger line {last.get('seq')} recorded {last.get('blake3')})"
        )
    prefix = f"results/{manifest.get('arm')}/"
    for e in entries:
        subject = str(e.get("subject", ""))
        rel = (
            "lock/prereg.yaml"
            if e.get("event") == "prereg_locked"
            else (subject[len(prefix) :] if subject.startswith(prefix) else None)
        )
        if (
            rel
            and (annex / rel).is_file()
            and rel in manifest["files"]
            and file_blake3(annex / rel) != e.get("blake3")
        ):
            problems.append(f"{path}:{e.get('seq')}: {rel} differs from what the ledger recorded")
    anchored = _anchor(annex)
    before_seal = entries[-2].get("hash") if len(entries) >= 2 else None
    if anchored is None:
        problems.append(f"{annex / 'certificate.md'}: no anchor line")
    elif last.get("event") == "annex_sealed" and anchored != before_seal:
        problems.append(
            f"{annex / 'certificate.md'}: anchors {anchored}, but the line before "
            f"annex_sealed hashes to {before_seal}"
        )
    if head is not None and head not in (anchored, last.get("hash")):
        problems.append(
            f"{path}: the anchored head {head} is neither the certificate's anchor "
            "nor the last line (tail cut or ledger replaced)"
        )
    elif head is not None and head == anchored and before_seal != head:
        problems.append(f"{path}: the anchored head {head} is not the line before annex_sealed")
    return problems


def _anchor(annex: Path) -> str | None:
    cert = annex / "certificate.md"
    if not cert.is_file():
        return None
    for line in cert.read_text(encoding="utf-8").splitlines():
        if line.startswith(ANCHOR_PREFIX):
            return line[len(ANCHOR_PREFIX) :].strip().strip("`")
    return None


def _schemas(annex: Path) -> list[str]:
    problems = []
    try:
        if trials_prereg.is_trials(annex / "lock" / "prereg.yaml"):
            trials_prereg.load(annex / "lock" / "prereg.yaml")
            return problems  # trials v1 headers differ from cells v1 (trials contract section 9)
        prereg.load(annex / "lock" / "prereg.yaml")
    except AuditError as e:
        problems.append(str(e).removeprefix("error"))
    for p in sorted(annex.glob("recompute/*/run1/*.csv")):
        want = HEADERS.get(p.name)
        got = p.read_text(encoding="utf-8").split("\n", 1)[0]
        if want and got != want:
            problems.append(f"{p}: header is {got!r}, the contract says {want!r}")
    return problems


def verify(annex_dir: str, head: str | None = None) -> list[str]:
    annex = Path(annex_dir)
    manifest = _manifest(annex)
    return _files(annex, manifest) + _ledger(annex, manifest, head) + _schemas(annex)
