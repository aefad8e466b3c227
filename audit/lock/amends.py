"""Amendment arms: a prereg's optional ``amends: {arm, head}`` (docs/seal.md, "Amendment arms").

An amendment is an arm of its own, in its own folder, that declares which sealed
arm it amends and that arm's annex head. The parent's annex is found at
``<results>/<parent>/annex``, ``<results>`` being the results folder the caller
hands in (the one holding the amendment's own arm). Before
any job (the workflow as it is read) the parent is checked, in this order:

1. ``amends_cycle``: the amendment names itself;
2. ``amends_unknown_arm``: no annex at ``results/<parent>/annex``;
3. ``amends_not_verified``: that annex does not verify with the declared head
   (the seal's own verify, audit.seal.verify, nothing else);
4. ``amends_cycle``: the chain of amendments above the parent (each sealed arm's
   locked prereg's ``amends``) leads back to this arm or round to itself;
5. ``amends_other_bundle``: the parent was sealed under other bundle content
   (its lock's content digests are not this bundle's).

The lock checks the content again when it hashes the bundle, and begins the
ledger with an ``amendment`` event naming the parent arm and head, whose subject
is the parent's manifest. Nothing of the parent is ever written.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from audit.cells.record import Amends
from audit.core.strict_yaml import read_strict
from audit.errors import AuditError
from audit.files import file_blake3, regular_files
from audit.seal import ledger
from audit.seal.contract import MANIFEST
from audit.seal.lock_record import File, Lock, read_files, read_lock

declared = ledger.amends_of  # the prereg's ``amends`` block as read (before the lock), or None


def as_written(amended: Amends) -> dict[str, str]:
    """The checked prereg's ``amends`` block as the lock writes it into lock.json."""
    return {"arm": amended.arm, "head": amended.head}


def parent_annex(results: str | Path, parent: str) -> Path:
    """Where the parent's annex lives: ``results/<parent>/annex``, beside this arm's folder."""
    return Path(results) / parent / "annex"


def _amends_of_locked(annex: Path) -> dict[str, str] | None:
    """The ``amends`` block of a sealed arm's locked prereg (None if it has none)."""
    locked = annex / "lock" / "prereg.yaml"
    if not locked.is_file():
        return None
    try:
        return declared(read_strict(locked))
    except AuditError:
        return None


def _check_chain(prereg_path: str, arm: str, parent: str, results: Path) -> None:
    chain = [arm, parent]
    here = parent
    while True:
        up = _amends_of_locked(parent_annex(results, here))
        if up is None:
            return
        nxt = str(up.get("arm"))
        if nxt in chain:
            shown = " -> ".join([*chain, nxt])
            raise AuditError("amends_cycle", prereg_path, f"the amendments form a cycle ({shown})")
        chain.append(nxt)
        here = nxt


def _lock_of(annex: Path) -> tuple[Lock, Mapping[str, File]]:
    """The parent's lock.json and files.json records, as its annex carries them (verified)."""
    return read_lock(annex / "lock" / "lock.json"), read_files(annex / "lock" / "files.json")


def other_bundle(where: str, parent: str, role: str, have: object, want: object) -> AuditError:
    return AuditError(
        "amends_other_bundle",
        where,
        f"{role} content digest is {have} but arm {parent!r} was sealed under {want}: an"
        " amendment is measured on its parent's bundle content",
    )


def check_content(parent: str, parent_lock: Lock, tables: dict[str, dict]) -> None:
    """The bundle the lock hashed holds the content the parent locked (same roles too)."""
    want = parent_lock.bundle
    for role in sorted(set(want) | set(tables)):
        have = tables.get(role, {}).get("content_digest")
        was = want[role].content_digest if role in want else None
        if have != was:
            where = str(tables.get(role, {}).get("file", role))
            raise other_bundle(where, parent, role, have, was)


def check_jobs(parent: str, parent_lock: Lock, where: str, files: list[dict] | None) -> None:
    """A trials source's jobs files (path, blake3) are the parent's."""
    jobs = parent_lock.jobs
    want = None if jobs is None else [dict(f) for f in jobs.files]
    if want != files:
        raise AuditError(
            "amends_other_bundle",
            where,
            f"the jobs files differ from those arm {parent!r} was sealed under",
        )


def _check_files(
    parent: str, annex: Path, bundle_files: dict[str, tuple[str, dict[str, str] | None]]
) -> None:
    """Before any job: each bundle file the parent locked, by its bytes, else its content.

    ``bundle_files``: role -> (path, CSV types or None) of the files this run reads
    that exist now (a file built by a rule is checked by the lock instead)."""
    from audit.bundles.digest import table_digest

    lock, files = _lock_of(annex)
    want = lock.bundle
    for role, (path, types) in sorted(bundle_files.items()):
        if role not in want:
            raise other_bundle(path, parent, role, "(a table the parent did not lock)", None)
        if not Path(path).is_file():
            continue  # missing_file is the workflow's check
        if role in files and files[role].blake3 == file_blake3(path):
            continue  # the same bytes: the same content
        have = table_digest(path, types)["content_digest"]
        if have != want[role].content_digest:
            raise other_bundle(path, parent, role, have, want[role].content_digest)


def check(
    prereg_path: str,
    amended: Amends | None,
    arm: str,
    results: str | Path,
    bundle_files: dict[str, tuple[str, dict[str, str] | None]],
    jobs: tuple[str, str] | None = None,
) -> tuple[str, str] | None:
    """(parent arm, head) once every check holds; None when the prereg amends nothing.

    ``amended``: the checked prereg record's ``amends`` (either kind's record has it);
    ``jobs``: a trials source's (jobs root as the prereg names it, its folder)."""
    if amended is None:
        return None  # read while every run's workflow is parsed: verify (polars) not imported
    from audit.kinds.arm_kind import annex_contract
    from audit.seal.verify import verify

    parent, head = amended.arm, amended.head
    results = Path(results)
    if parent == arm:
        raise AuditError("amends_cycle", prereg_path, f"arm {arm!r} amends itself")
    annex = parent_annex(results, parent)
    if not (annex / MANIFEST).is_file():
        raise AuditError(
            "amends_unknown_arm",
            prereg_path,
            f"amends arm {parent!r}, but there is no sealed annex at {annex}",
        )
    try:
        problems = verify(str(annex), head, read_prereg=annex_contract)
    except AuditError as e:
        raise AuditError("amends_not_verified", str(annex), f"{e.kind}: {e.detail}") from None
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise AuditError(
            "amends_not_verified",
            str(annex),
            f"does not verify with the declared head {head}: {problems[0]}{more}",
        )
    _check_chain(prereg_path, arm, parent, results)
    _check_files(parent, annex, bundle_files)
    if jobs is not None:
        root = Path(jobs[1])
        files = [{"path": rel, "blake3": file_blake3(root / rel)} for rel in regular_files(root)]
        check_jobs(parent, _lock_of(annex)[0], jobs[1], files)
    return parent, head


def event(amended: Amends | None, results: str | Path) -> dict[str, object] | None:
    """The ``amendment`` event that begins an amendment's ledger (None: not an amendment;
    ``amended``: the checked prereg record's ``amends``).

    The parent's manifest is ``<results>/<parent>/annex/manifest.json``."""
    if amended is None:
        return None
    manifest = parent_annex(results, amended.arm) / MANIFEST
    if not manifest.is_file():
        raise AuditError("amends_unknown_arm", str(manifest), "the parent's annex is gone")
    return ledger.record(
        "amendment", str(manifest), {"parent_arm": amended.arm, "parent_head": amended.head}
    )


def parent_lock(amended: Amends | None, results: str | Path) -> tuple[str, Lock] | None:
    """(parent arm, its lock.json's record) for the lock's content check; None: not an
    amendment."""
    if amended is None:
        return None
    annex = parent_annex(results, amended.arm)
    if not (annex / "lock" / "lock.json").is_file():
        raise AuditError(
            "amends_unknown_arm",
            str(annex),
            f"amends arm {amended.arm!r}, but there is no sealed annex here",
        )
    return amended.arm, read_lock(annex / "lock" / "lock.json")


def refresh(prereg_path: str, config_path: str, results: str = "results") -> list[str]:
    """Rewrite an amendment prereg's ``amends.head`` to the parent's sealed head, then the
    config's ``prereg_blake3`` to the rewritten prereg's blake3 (after a rerun of the parent).

    The head is read from the parent's annex (results/<parent>/annex/ledger.jsonl, its
    last line) and must verify there; the prereg's ``head: <hex>`` text is replaced in
    place, comments kept. A maintainer's step before a run, never part of one."""
    import re

    from audit.files import write_atomic
    from audit.kinds.arm_kind import annex_contract
    from audit.seal.verify import verify

    block = declared(read_strict(prereg_path))
    if block is None:
        raise AuditError("bad_prereg", prereg_path, "amends no arm")
    annex = parent_annex(results, block["arm"])
    if not (annex / "ledger.jsonl").is_file():
        raise AuditError("amends_unknown_arm", str(annex), "no sealed annex: run the parent first")
    head = ledger.head(annex / "ledger.jsonl")
    problems = verify(str(annex), head, read_prereg=annex_contract)
    if problems:
        raise AuditError("amends_not_verified", str(annex), problems[0])
    text = Path(prereg_path).read_text(encoding="utf-8")
    pattern = re.compile(r"(\bhead:\s*)([0-9a-f]{64})")
    if len(pattern.findall(text)) != 1:
        raise AuditError("bad_prereg", prereg_path, "holds not exactly one 'head: <64 hex>'")
    write_atomic(prereg_path, pattern.sub(lambda m: m.group(1) + head, text))
    digest = file_blake3(prereg_path)
    cfg = Path(config_path).read_text(encoding="utf-8")
    line = re.compile(r"^(prereg_blake3:\s*)([0-9a-f]{64})", re.MULTILINE)
    if len(line.findall(cfg)) != 1:
        raise AuditError("bad_config", config_path, "holds not exactly one prereg_blake3 line")
    write_atomic(config_path, line.sub(lambda m: m.group(1) + digest, cfg))
    return [
        f"{prereg_path}: amends {block['arm']} at head {head}",
        f"{config_path}: prereg_blake3 {digest}",
    ]
