"""A second seat's check of an annex: the head, the ledger, every file, the signature, schemas.

Nothing the annex says about how to check it is trusted: which files may be
left out, which lines are volatile and where files live come from
audit.seal.contract; every path the manifest names is confined to the annex.
A malformed annex file is an AuditError (one classed line, exit 2); a well-formed
annex that does not hold is a list of problems (exit 1), each naming its file.

The annex's locked prereg is a kind's own: the caller hands ``verify`` the kind
registry's reader of it (``read_prereg``, audit/kinds/arm_kind.py ``annex_contract``),
so that the seal imports no kind.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from audit.core.strict_yaml import read_strict
from audit.errors import AuditError
from audit.files import DuplicateKey, json_loads, open_regular, read_regular
from audit.seal import attest, contract, ledger, timestamp
from audit.seal.annex import COPIED, COPIED_GLOBS, readme, tests_of

CELLS_V1 = "cells v1"  # the contract whose run files' headers HEADERS holds
HEADERS = {
    "cells.csv": "row_id,column,kind,policy,published,recomputed,abs_diff,tier",
    # cells v1 since issue 29 with the decimals each cell was judged at; trials v1, and
    # an annex sealed before, without
    "census.csv": (
        "row_id,column,class,best_tier,policies,min_abs_diff,decimals",
        "row_id,column,class,best_tier,policies,min_abs_diff",
    ),
    "reproduce.csv": "column,row_id,reproduced_by",
    "chance.csv": "column,candidates,certain,exact_certain,tested,exact_beyond,expected,p_cell_max,p_value,constructed",
    "nulls.csv": "column,observed,null_mean,null_sd,null_max,draws_ge_observed,draws,p",
    "null_hist.csv": "column,count,draws",
}
MAX_JSON = 64 << 20  # a manifest or key file larger than this is not ours
HEX64 = re.compile(r"[0-9a-f]{64}")
ARM = re.compile(r"[a-z0-9][a-z0-9._-]*")
SNAKEMAKE_MARKER = ".snakemake_timestamp"  # Snakemake's empty marker in a directory output


def read_json(path: Path, kind: str) -> object:
    """A small JSON file, or AuditError(kind) saying why not."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        raise AuditError("missing_file", str(path), "no such file") from None
    except OSError as e:
        raise AuditError("unreadable", str(path), e.strerror or str(e)) from None
    if not stat.S_ISREG(st.st_mode):
        raise AuditError(kind, str(path), "not a regular file (a link or a folder)")
    if st.st_size > MAX_JSON:
        raise AuditError(kind, str(path), f"{st.st_size} bytes; too large")
    try:
        return json_loads(path.read_bytes().decode("utf-8"))
    except DuplicateKey as e:
        raise AuditError(kind, str(path), f"key {e.args[0]!r} appears twice") from None
    except UnicodeDecodeError as e:
        raise AuditError(kind, str(path), f"not UTF-8 (byte {e.start})") from None
    except (json.JSONDecodeError, RecursionError) as e:
        raise AuditError(kind, str(path), f"not valid JSON ({e})") from None
    except OSError as e:
        raise AuditError("unreadable", str(path), e.strerror or str(e)) from None


def confined(annex: Path, rel: object, where: str) -> Path:
    """``rel`` as a path inside ``annex``: relative, no '..', no links on the way."""
    if not isinstance(rel, str) or not rel or "\0" in rel or "\\" in rel:
        raise AuditError("bad_manifest", where, f"file name {rel!r} is not a relative path")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or str(pure) != rel or any(p in ("..", ".", "") for p in pure.parts):
        raise AuditError(
            "bad_manifest", where, f"file name {rel!r} leaves the annex or is not normal"
        )
    here = annex
    for part in pure.parts:
        here = here / part
        try:
            if stat.S_ISLNK(here.lstat().st_mode):
                raise AuditError("bad_manifest", where, f"{rel}: {here} is a symbolic link")
        except FileNotFoundError:
            break
    return annex / pure


def load_manifest(annex: Path) -> dict:
    """The manifest, checked field by field against the contract's form."""
    if not annex.is_dir():
        raise AuditError("missing_file", str(annex), "annex folder does not exist")
    path = annex / contract.MANIFEST
    m = read_json(path, "bad_manifest")
    w = str(path)
    if not isinstance(m, dict) or set(m) != {"format", "arm", "prereg", "bundle", "files"}:
        raise AuditError("bad_manifest", w, "not a secondseat manifest (fields differ)")
    if m["format"] != contract.FORMAT:
        raise AuditError("bad_manifest", w, f"format is {m['format']!r}, not {contract.FORMAT}")
    if not isinstance(m["arm"], str) or not ARM.fullmatch(m["arm"]):
        raise AuditError("bad_manifest", w, f"arm {m['arm']!r} is not an arm name")
    if not isinstance(m["prereg"], dict) or not _hex(m["prereg"].get("blake3")):
        raise AuditError("bad_manifest", w, "prereg.blake3 is not a blake3 digest")
    if not isinstance(m["bundle"], dict) or not all(
        isinstance(k, str) and _hex(v) for k, v in m["bundle"].items()
    ):
        raise AuditError("bad_manifest", w, "bundle must map roles to content digests")
    if not isinstance(m["files"], dict) or not m["files"]:
        raise AuditError("bad_manifest", w, "files must map names to digests")
    seen: set[str] = set()
    for rel, d in m["files"].items():
        confined(annex, rel, w)
        if rel in contract.UNLISTED:
            raise AuditError("bad_manifest", w, f"{rel} may not be listed")
        if rel.casefold() in seen:
            raise AuditError("bad_manifest", w, f"{rel} is listed twice")
        seen.add(rel.casefold())
        if (
            not isinstance(d, dict)
            or set(d) != {"blake3", "sha256"}
            or not all(_hex(v) for v in d.values())
        ):
            raise AuditError("bad_manifest", w, f"{rel}: digests must be blake3 and sha256")
    return m


def _hex(v: object) -> bool:
    return isinstance(v, str) and HEX64.fullmatch(v) is not None


def _present(annex: Path) -> tuple[set[str], list[str]]:
    """Every file under the annex, without following links; links and oddities are problems."""
    found: set[str] = set()
    problems: list[str] = []
    for dirpath, dirnames, filenames in os.walk(annex, followlinks=False):
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            mode = p.lstat().st_mode
            rel = p.relative_to(annex).as_posix()
            if stat.S_ISLNK(mode):
                problems.append(f"{p}: a symbolic link inside the annex")
            elif stat.S_ISREG(mode):
                found.add(rel)
            elif not stat.S_ISDIR(mode):
                problems.append(f"{p}: not a regular file")
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]
    marker = annex / SNAKEMAKE_MARKER
    if SNAKEMAKE_MARKER in found and marker.stat().st_size == 0:
        found.discard(SNAKEMAKE_MARKER)
    return found, problems


def _files(annex: Path, m: dict) -> list[str]:
    present, problems = _present(annex)
    for rel, want in sorted(m["files"].items()):
        p = annex / rel
        if rel not in present:
            problems.append(f"{p}: missing (listed in the manifest)")
            continue
        got = attest.digests(p)
        if got != want:
            problems.append(
                f"{p}: changed (blake3 {got['blake3']}, manifest says {want['blake3']})"
            )
    unlisted = {*contract.UNLISTED, *contract.OPTIONAL_UNLISTED}
    for rel in sorted(present - set(m["files"]) - unlisted):
        problems.append(f"{annex / rel}: added (not in the manifest)")
    for rel in contract.UNLISTED:
        if rel not in present:
            problems.append(f"{annex / rel}: missing")
    return problems


def _glob_matches(rel: str, pattern: str) -> bool:
    """``rel`` matches the seal's glob as a whole path, as ``Path.glob`` found it: a
    relative pattern alone matches from the right, so ``entries.csv`` would match
    ``recompute/x/run2/entries.csv``, which the seal never copies."""
    path, glob = PurePosixPath(rel), PurePosixPath(pattern)
    return len(path.parts) == len(glob.parts) and path.match(pattern)


def _required(annex: Path, m: dict, entries: list[dict]) -> list[str]:
    """Evidence the annex must carry: what the seal copies of every recorded output."""
    problems = []
    seal_subject = str(entries[-1].get("subject", ""))
    suffix = f"annex/{contract.MANIFEST}"
    if not seal_subject.endswith(suffix):
        return [f"{annex / contract.LEDGER}: the seal line's subject is not an annex manifest"]
    prefix = seal_subject[: -len(suffix)]
    wanted = set(COPIED)
    for e in entries:
        subject = e.get("subject")
        if e.get("event") != "output_recorded" or not isinstance(subject, str):
            continue
        rel = subject[len(prefix) :] if subject.startswith(prefix) else None
        if rel is None:
            continue
        copied = rel in wanted or any(_glob_matches(rel, g) for g in COPIED_GLOBS)
        if copied and rel not in m["files"]:
            problems.append(
                f"{annex / rel}: the ledger recorded it (line {e.get('seq')}) but the annex "
                "does not carry it"
            )
        elif copied and m["files"][rel]["blake3"] != e.get("blake3"):
            problems.append(f"{annex / rel}: differs from what ledger line {e.get('seq')} recorded")
    return problems


def _ledger(annex: Path, m: dict, head: str | None) -> tuple[list[str], list[dict]]:
    path = annex / contract.LEDGER
    if not path.is_file() or path.is_symlink():
        return [f"{path}: missing"], []
    problems = [msg for _, msg in ledger.check(path, head, rehash=False)]
    entries = [e for e in ledger.parse(ledger.read_raw(path), str(path)) if isinstance(e, dict)]
    if not entries:
        return problems + [f"{path}: no ledger lines"], []
    last = entries[-1]
    if (
        last.get("event") != "annex_sealed"
        or sum(e.get("event") == "annex_sealed" for e in entries) != 1
    ):
        problems.append(f"{path}: must end with its one annex_sealed line (tail cut or extended?)")
        return problems, entries
    if last.get("blake3") != attest.digests(annex / contract.MANIFEST)["blake3"]:
        problems.append(
            f"{annex / contract.MANIFEST}: not the manifest the seal line "
            f"(ledger line {last.get('seq')}) recorded"
        )
    locked = [e for e in entries if e.get("event") == "prereg_locked"]
    start = 1 if entries[0].get("event") == "amendment" else 0
    if len(entries) <= start or entries[start].get("event") != "prereg_locked" or len(locked) != 1:
        problems.append(
            f"{path}: must begin with its one prereg_locked line (after its amendment line,"
            " for an amendment)"
        )
    problems += _amendment(annex, path, entries)
    if last.get("arm") != m["arm"]:
        problems.append(
            f"{annex / contract.MANIFEST}: arm {m['arm']!r}, sealed as {last.get('arm')!r}"
        )
    pre = m["prereg"]["blake3"]
    if last.get("prereg_blake3") != pre or (locked and locked[0].get("blake3") != pre):
        problems.append(
            f"{annex / contract.MANIFEST}: prereg blake3 {pre} is not what the ledger locked"
        )
    if m["files"].get("lock/prereg.yaml", {}).get("blake3") != pre:
        problems.append(f"{annex / 'lock/prereg.yaml'}: not the prereg the ledger locked")
    hashed = {
        e.get("role"): e.get("content_digest")
        for e in entries
        if e.get("event") == "bundle_hashed" and e.get("content_digest")
    }
    if last.get("bundle") != m["bundle"] or any(hashed.get(r) != d for r, d in m["bundle"].items()):
        problems.append(
            f"{annex / contract.MANIFEST}: bundle content digests are not what the ledger hashed"
        )
    anchor = _anchor(annex)
    if anchor != last.get("prev"):
        problems.append(
            f"{annex / 'certificate.md'}: anchors {anchor}, but the seal line follows "
            f"{last.get('prev')}"
        )
    return problems, entries


def _amendment(annex: Path, path: Path, entries: list[dict]) -> list[str]:
    """The amendment line agrees with the locked prereg's ``amends`` (docs/seal.md).

    An amendment's ledger begins with one ``amendment`` line naming the parent arm
    and head its locked prereg declares; any other ledger holds none."""
    try:
        block = ledger.amends_of(read_strict(annex / "lock" / "prereg.yaml"))
    except AuditError:
        return []  # an unreadable locked prereg is reported by the schema check
    lines = [e for e in entries if e.get("event") == "amendment"]
    if block is None:
        if lines:
            return [f"{path}: an amendment line, but the locked prereg amends no arm"]
        return []
    first = entries[0]
    if (
        len(lines) != 1
        or first.get("event") != "amendment"
        or first.get("parent_arm") != block["arm"]
        or first.get("parent_head") != block["head"]
    ):
        return [
            f"{path}: must begin with one amendment line naming arm {block['arm']!r} and"
            f" head {block['head']}, as the locked prereg declares"
        ]
    return []


def _anchor(annex: Path) -> str | None:
    cert = annex / "certificate.md"
    if not cert.is_file() or cert.is_symlink():
        return None
    try:
        text = read_regular(cert, contract.MAX_TEXT, "too_large").decode("utf-8")
    except UnicodeDecodeError:
        return None
    found = [
        ln[len(contract.ANCHOR_PREFIX) :].strip().strip("`")
        for ln in text.splitlines()
        if ln.startswith(contract.ANCHOR_PREFIX)
    ]
    return found[0] if len(found) == 1 else None


PREDICATE_FIELDS = ("result", "passedTests", "warnedTests", "failedTests")


def _predicate(annex: Path, m: dict, stmt: dict) -> list[str]:
    """The signed verdict and test lists say what the annex's own census, controls and
    agreement say (annex.tests_of on the annex's copies), and its configuration is the
    locked prereg the manifest lists: a seat cannot sign PASSED over divergent cells."""
    where = annex / contract.ENVELOPE
    pred = stmt.get("predicate")
    want_keys = {*PREDICATE_FIELDS, "configuration"}
    if not isinstance(pred, dict) or set(pred) != want_keys:
        return [f"{where}: the signed predicate's fields are not {', '.join(sorted(want_keys))}"]
    result, tests = tests_of(annex)
    derived = dict(
        zip(
            PREDICATE_FIELDS,
            (result, tests["passed"], tests["warned"], tests["failed"]),
            strict=True,
        )
    )
    problems = []
    for field in PREDICATE_FIELDS:
        if pred[field] != derived[field]:
            problems.append(
                f"{where}: the signed {field} is not what the annex's census, controls and "
                f"agreement give ({_differs(pred[field], derived[field])})"
            )
    config = [{"name": "lock/prereg.yaml", "digest": m["files"].get("lock/prereg.yaml")}]
    if pred["configuration"] != config:
        problems.append(f"{where}: the signed configuration is not the locked prereg listed")
    return problems


def _differs(signed: object, derived: object) -> str:
    """The first difference of a signed field from the derived one, in a few words."""
    if isinstance(signed, list) and isinstance(derived, list):
        extra = [t for t in signed if t not in derived]
        lacking = [t for t in derived if t not in signed]
        if extra:
            return f"signed but not derived: {str(extra[0])[:120]!r}"
        if lacking:
            return f"derived but not signed: {str(lacking[0])[:120]!r}"
        return "same tests in another order or repeated"
    return f"signed {str(signed)[:40]!r}, derived {str(derived)[:40]!r}"


def _attestation(
    annex: Path, m: dict, key_file: str | None, files_hold: bool
) -> tuple[list[str], str | None]:
    keydoc = read_json(annex / contract.PUBLIC_KEY, "bad_key")
    key = attest.load_public_key(keydoc, str(annex / contract.PUBLIC_KEY))
    problems = []
    if key_file is not None:
        trusted = attest.load_public_key(read_json(Path(key_file), "bad_key"), key_file)
        if trusted.keyid != key.keyid or trusted.keyval != key.keyval:
            problems.append(
                f"{annex / contract.PUBLIC_KEY}: key {key.keyid}, not the key you trust "
                f"({trusted.keyid})"
            )
            return problems, key.keyid
    env = read_json(annex / contract.ENVELOPE, "bad_attestation")
    try:
        stmt = attest.open_envelope(env, key, str(annex / contract.ENVELOPE))
    except AuditError as e:
        if e.status == 1:
            return [f"{annex / contract.ENVELOPE}: {e.detail}"], key.keyid
        raise
    want = {rel: d for rel, d in m["files"].items() if rel != contract.ENVELOPE}
    if attest.subjects_of(stmt) != want:
        problems.append(
            f"{annex / contract.ENVELOPE}: the signed statement's subjects are not the manifest's files"
        )
    elif files_hold:  # every file is the one the manifest lists: derive the verdict from them
        problems += _predicate(annex, m, stmt)
    return problems, key.keyid


def _readme(annex: Path, m: dict, entries: list[dict], keyid: str | None) -> list[str]:
    path = annex / contract.README
    if not entries or not path.is_file() or path.is_symlink():
        return []  # reported as missing already
    want = readme(m["arm"], str(entries[-1].get("hash")), str(keyid))
    if read_regular(path, contract.MAX_TEXT, "too_large") != want.encode("utf-8"):
        return [f"{path}: not the README of this head (edited)"]
    return []


def _schemas(annex: Path, read_prereg: Callable[[Path], str]) -> list[str]:
    problems = []
    locked = annex / "lock" / "prereg.yaml"
    try:
        # the annex's own prereg says its kind: verify's input is a stranger's annex
        if read_prereg(locked) != CELLS_V1:
            return problems  # trials v1 headers differ from cells v1 (trials contract section 9)
    except AuditError as e:
        problems.append(str(e).removeprefix("error"))
    for p in sorted(annex.glob("recompute/*/run1/*.csv")):
        want = HEADERS.get(p.name)
        with open_regular(p) as f:  # a FIFO or folder: refused, never waited on
            got = f.readline(4096).decode("utf-8", errors="replace").rstrip("\r\n")
        allowed = (want,) if isinstance(want, str) else want
        if want and got not in allowed:
            problems.append(
                f"{p}: header is {got!r}, the contract says {' or '.join(map(repr, allowed))}"
            )
    return problems


def verify(
    annex_dir: str,
    head: str | None = None,
    key_file: str | None = None,
    tsa_cert: str | None = None,
    *,
    read_prereg: Callable[[Path], str],
) -> list[str]:
    """Problems found (empty: the annex holds). Raises AuditError for a malformed annex.

    The time-stamps' imprints and order are checked always, their signatures against
    ``tsa_cert`` (PEM of the CA or TSA certificates you trust) when given.
    ``read_prereg(path)`` reads and checks the annex's locked prereg by its own kind
    (an AuditError when it does not hold) and returns that kind's contract; the run
    files' headers are checked for cells v1 (CELLS_V1)."""
    annex = Path(annex_dir)
    if head is not None and not _hex(head):
        raise AuditError("bad_args", "--head", f"{head!r} is not a 64-hex-digit head")
    m = load_manifest(annex)
    problems = _files(annex, m)
    files_hold = not problems
    found, entries = _ledger(annex, m, head)
    problems += found
    if entries:
        problems += _required(annex, m, entries)
    attest_problems, keyid = _attestation(annex, m, key_file, files_hold)
    problems += attest_problems
    problems += _readme(annex, m, entries, keyid)
    if entries:
        problems += timestamp.check_annex(annex, entries, tsa_cert).problems
    if not problems:
        problems += _schemas(annex, read_prereg)
    return problems
