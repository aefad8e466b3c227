"""Seal the annex: everything a second seat needs to verify and rerun the audit.

Order (docs/seal.md): chain every event file into the ledger; copy the outputs;
write certificate.md anchoring the pre-seal head (the hash of the last event
line); write run.json and environment.json; sign an in-toto statement whose
subjects are all of those files; write manifest.json (every file's blake3 and
sha256, and what the ledger says of arm, prereg and bundle); end the ledger
with ``annex_sealed``, which records the manifest's blake3; write the README
carrying that last line's hash, the annex head. The head commits to every byte:
the ledger through its chain, the manifest through the seal line, every listed
file through the manifest, the README by being rebuilt from the head.
"""

from __future__ import annotations

import json
import platform
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from audit.errors import AuditError
from audit.files import write_atomic
from audit.seal import attest, contract, environment, ledger
from audit.seal.lock_record import read_lock

COPIED = [
    "lock/prereg.yaml",
    "lock/lock.json",
    "lock/files.json",
    "lock/lock.tsr",  # the lock's RFC 3161 token and its record, when a TSA was configured
    "lock/timestamp.json",
    "agreement.json",
    "agreement.md",
    "census.txt",
    "census.json",
    "census_columns.csv",
    "census_cells.csv",
    "census_rows.csv",
    "controls.csv",
    "controls.md",
    "vulnerabilities.json",
]
# The self-test's kill matrix (python -m audit self-test): in the annex when the prereg asks
SELF_TEST = ["self-test.md", "self-test.csv"]
COPIED_GLOBS = [
    "recompute/*/run1/*.csv",
    "recompute/*/runs-identical.json",
    "controls/*/prediction.csv",
    "controls/*/selection.json",
    "controls/*/check.csv",
    "controls/*/verdict.json",
    "report/*",
    # trials arms (docs/trials-contract.md): adapter output, referee summaries
    "bundle/adapter.json",
    "bundle/trials.parquet",
    "intervals.csv",
    "recovery.csv",
    "recovery_rows.csv",
    "recomputed_only.csv",
    "entries.csv",
    "settings/*",
    "compare/*",
    # an amendment arm (docs/seal.md, "Amendment arms"): the comparison with its parent
    "versus-*.csv",
    "versus-*.json",
]


def readme(arm: str, head: str, keyid: str) -> str:
    """The annex's README: a function of the head, so verify can rebuild it byte for byte."""
    return f"""# secondseat annex: arm {arm}

Annex head (the hash of the ledger's last line, annex_sealed): `{head}`

The head commits to every byte of this folder: the ledger through its hash chain,
manifest.json through the seal line, every other file through the manifest, and
this README, which verify rebuilds from the head. Obtain the head from the seat
itself (the last line its run printed, or where it published it), never from
this folder alone.

Verify (hashes, ledger chain, head, signature, schemas):

    uv run python -m audit verify <this folder> --head {head}

Signed by the seat's ed25519 key `{keyid}` ({contract.PUBLIC_KEY}; DSSE envelope
{contract.ENVELOPE}). The signature says that whoever holds that key sealed this
annex; it says who only if you got the key from its holder.

Rerun as a second seat, in a clean clone, on your own copy of the bundle:

    uv run snakemake --cores 2 [--configfile config/<arm>.yaml] \\
        --config seat=second annex=<this folder> head={head} bundle=<bundle folder>
    uv run python -m audit compare-annex <this folder> results/{arm}/annex

Volatile files (times, machine, this seat's key and ledger): {", ".join(contract.VOLATILE)};
in certificate.md the anchor line and the writer-dependent file lines. Everything
else must be byte-identical between seats.
"""


def _self_test(res: Path) -> list[Path]:
    """The kill matrix, which the locked prereg asks for (key self_test): it must exist."""
    missing = [f for f in SELF_TEST if not (res / f).is_file()]
    if missing:
        raise AuditError("missing_file", str(res / missing[0]), "the prereg asks for the self-test")
    return [res / f for f in SELF_TEST]


def _copy_outputs(res: Path, tmp: Path, self_test: bool) -> None:
    files = [res / f for f in COPIED if (res / f).is_file()]
    for pattern in COPIED_GLOBS:
        files += sorted(p for p in res.glob(pattern) if p.is_file())
    files += _self_test(res) if self_test else []
    for src in files:
        dst = tmp / src.relative_to(res)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)


def _csv(path: Path, fields: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of a summary CSV; a file without the named columns is refused (unreadable)."""
    import csv
    import io

    from audit.files import read_regular
    from audit.seal.contract import MAX_TEXT

    if not path.exists():
        return []
    raw = read_regular(path, MAX_TEXT, "too_large")  # a FIFO or folder: refused, not read
    try:
        rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error) as e:
        raise AuditError("unreadable", str(path), f"not a CSV file ({e})") from None
    for n, r in enumerate(rows, start=2):
        if any(not isinstance(r.get(k), str) for k in fields):
            raise AuditError("unreadable", str(path), f"line {n}: lacks one of {', '.join(fields)}")
    return rows


def tests_of(res: Path) -> tuple[str, dict[str, list[str]]]:
    """The predicate's verdict and test names (docs/seal.md, "The statement"), from the
    outputs alone: the seal signs them, and verify derives them again from the annex's
    own copies of the same files and requires the signed statement to say the same."""
    passed: list[str] = []
    warned: list[str] = []
    failed: list[str] = []
    from audit.core.agreement import Agreement

    agreement = Agreement.read(res / "agreement.json")
    (failed if agreement.disagreements else passed).append("contestants agree")
    for p in sorted(res.glob("recompute/*/runs-identical.json")):
        passed.append(f"runs byte-identical: {p.parent.name}")
    for r in _csv(res / "census_cells.csv", ("row_id", "column", "class", "best_tier")):
        name = f"cell {r['row_id']} / {r['column']}: {r['class']}"
        if r["class"] == "reproduced":
            passed.append(f"{name} at tier {r['best_tier']}")
        elif r["class"] == "divergent":
            failed.append(name)
        elif r["class"] == "no_data":
            warned.append(name)
    for r in _csv(res / "recovery.csv", ()):
        name = f"cell {r.get('row_id')} / {r.get('column')}: {r.get('class')}"
        (passed if r.get("class") in ("reproduced", "recovered") else warned).append(name)
    for r in _csv(res / "controls.csv", ("control",)):
        v = r.get("verdict", "")
        name = f"control {r['control']}: {v}"
        (passed if v == "pass" else warned if v == "skipped" else failed).append(name)
    machinery = agreement.disagreements or any(t.startswith("control ") for t in failed)
    result = "FAILED" if machinery else ("WARNED" if failed or warned else "PASSED")
    return result, {"passed": passed, "warned": warned, "failed": failed}


def seal(
    res_dir: str,
    arm: str,
    event_files: list[str],
    out_dir: str,
    ledger_out: str,
    key: str | None = None,
    src: str | None = None,
    tsa: tuple[str, str, bool] | None = None,
    *,
    certificate: Callable[[Path, str], str],
    self_test: bool = False,
) -> tuple[str, str, str, str | None]:
    """Write the annex and the ledger; return (pre-seal head, annex head, key id, what
    became of the seal's time-stamp: None without a TSA).

    ``certificate`` writes certificate.md's text from the results folder and the head
    it anchors (the arm's kind's, handed by the caller); ``self_test``: the locked
    prereg asks for the kill matrix, which is sealed with the rest.

    ``tsa`` is (url, trusted PEM, optional): the head is then time-stamped into the
    annex's seal.tsr before the annex is moved into place; a TSA that is down or
    answers badly stops the seal (tsa_unavailable) unless the stamp is optional."""
    res, out = Path(res_dir), Path(out_dir)
    records: list[dict] = []
    for f in event_files:
        recs = ledger.read_events(f)
        ledger.check_subjects([r for r in recs if r["event"] != "bundle_hashed"], f)
        records += recs
    first = [r["event"] for r in records[:2]]
    if first[:1] != ["prereg_locked"] and first != ["amendment", "prereg_locked"]:
        raise AuditError(
            "bad_events",
            event_files[0] if event_files else out_dir,
            "the first event must be prereg_locked, or amendment then prereg_locked (the"
            " lock's events)",
        )
    entries = ledger.chain(records)
    anchored = str(entries[-1]["hash"])
    lock = read_lock(res / "lock" / "lock.json")

    tmp = out.with_name(f".{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    _copy_outputs(res, tmp, self_test)
    write_atomic(tmp / "certificate.md", certificate(res, anchored))
    run = {
        "sealed_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
    }
    write_atomic(tmp / "run.json", json.dumps(run, indent=2, sort_keys=True) + "\n")
    if src is not None:
        env = environment.describe(Path(src))
        write_atomic(tmp / "environment.json", json.dumps(env, indent=2, sort_keys=True) + "\n")

    signer, _ = attest.load_or_create_signer(key)
    keydoc = attest.public_key_doc(signer)
    write_atomic(tmp / contract.PUBLIC_KEY, json.dumps(keydoc, indent=2, sort_keys=True) + "\n")
    listed = sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*") if p.is_file())
    files = {rel: attest.digests(tmp / rel) for rel in listed}
    result, tests = tests_of(res)
    stmt = attest.statement(files, files["lock/prereg.yaml"], result, tests)
    write_atomic(
        tmp / contract.ENVELOPE,
        json.dumps(attest.sign(stmt, signer), indent=2, sort_keys=True) + "\n",
    )
    files[contract.ENVELOPE] = attest.digests(tmp / contract.ENVELOPE)
    content = {role: t.content_digest for role, t in sorted(lock.bundle.items())}
    manifest = {
        "format": contract.FORMAT,
        "arm": arm,
        "prereg": {"blake3": lock.prereg_blake3},
        "bundle": content,
        "files": files,
    }
    write_atomic(tmp / contract.MANIFEST, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    seal_record = {
        "event": "annex_sealed",
        "subject": str(out / contract.MANIFEST),
        "blake3": attest.digests(tmp / contract.MANIFEST)["blake3"],
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "arm": arm,
        "prereg_blake3": lock.prereg_blake3,
        "bundle": content,
        "files": len(files),
    }
    (sealed,) = ledger.chain([seal_record], anchored, len(entries) + 1)
    entries.append(sealed)
    head = str(sealed["hash"])
    write_atomic(tmp / contract.README, readme(arm, head, str(keydoc["keyid"])))
    write_atomic(tmp / contract.LEDGER, ledger.text(entries))
    stamped = _stamp_seal(tmp, head, tsa) if tsa else None
    shutil.rmtree(out, ignore_errors=True)
    tmp.replace(out)
    write_atomic(ledger_out, ledger.text(entries))
    return anchored, head, str(keydoc["keyid"]), stamped


def _stamp_seal(tmp: Path, head: str, tsa: tuple[str, str, bool]) -> str:
    """seal.tsr over the head, or (optional stamp) why not; a refusal leaves no annex."""
    from audit.seal import timestamp

    url, cert, optional = tsa
    try:
        stamp = timestamp.request_stamp(url, head, timestamp.load_trusted(cert, "bad_config"))
    except AuditError as e:
        if optional and e.kind == "tsa_unavailable":
            return f"annex head not time-stamped: {e.detail}"
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    write_atomic(tmp / contract.SEAL_TOKEN, stamp.token)
    return f"annex head time-stamped at {timestamp.utc(stamp.gen_time)} by {url} ({contract.SEAL_TOKEN})"
