"""An annex as one archive to deposit, and the same archive fetched back (docs/seal.md).

``publish`` writes a plain tar (no compression: the same bytes on any machine,
whatever zlib it has) holding ``ro-crate-metadata.json`` and the annex under
``annex/``. Entries are the annex's regular files in sorted order, each with
mode 0644, owner and group 0 with no names, and time 0; the crate comes first.
The crate (made with the ``rocrate`` library) describes the annex: its head, arm,
locked prereg and bundle content digests, each file with its sha256 and size.
It is a function of the annex alone, so ``fetch`` rebuilds it from the fetched
annex and requires the same bytes: nothing in the archive escapes the head.

``fetch`` trusts nothing the archive says. Before a byte is written it reads
every member's header: only regular files, under ``annex/`` or the crate's own
name, relative, without ``..``, ``.`` or empty parts, each named once, each and
all of them within the size bounds; then it writes them (refusing links on the
way, never following one) into a hidden folder inside DIR, verifies the annex
there with the head, and only then moves it into place. A refusal is one line
(exit 2) and leaves DIR as it was (removed, when fetch made it).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from audit.errors import AuditError
from audit.files import file_digests
from audit.seal import contract, ledger
from audit.seal.verify import HEX64, SNAKEMAKE_MARKER, verify

CRATE = "ro-crate-metadata.json"
TOP = "annex"  # the annex's folder inside the archive
FILE_MODE = 0o644
MAX_FILE = 1 << 30  # one annex file; the largest real ones are tens of MB
MAX_TOTAL = 4 << 30  # the whole annex
MAX_MEMBERS = 100_000
LICENSE = "CC-BY-4.0"  # an SPDX id: Zenodo's default for research data; --license for another
# Media types by suffix, fixed here (the mimetypes module reads the machine's own tables)
MEDIA = {
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".csv": "text/csv",
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".yaml": "application/yaml",
    ".html": "text/html",
    ".svg": "image/svg+xml",
    ".parquet": "application/vnd.apache.parquet",
    ".tsr": "application/timestamp-reply",
}
ROLES = {
    "README.md": "the annex's README, carrying its head",
    "manifest.json": "every listed file's blake3 and sha256, the arm, prereg and bundle digests",
    "ledger.jsonl": "the hash-chained ledger; the hash of its last line is the annex head",
    "certificate.md": "what reproduces, at which tolerance, under which policies",
    "attestation.dsse.json": "the in-toto statement over the listed files, signed by the seat",
    "seat-key.pub.json": "the seat's public key",
    "lock/prereg.yaml": "the preregistration as locked before any comparison",
    "lock/lock.json": "the prereg's blake3 and the bundle tables' content digests, at the lock",
    "lock/files.json": "the bundle files' bytes as shipped, at the lock",
    "lock.tsr": "an RFC 3161 time-stamp token over the lock event's hash",
    "seal.tsr": "an RFC 3161 time-stamp token over the annex head (unlisted)",
}


def _annex_files(annex: Path) -> list[str]:
    """Every regular file of the annex, relative and sorted; a link or device is refused."""
    if not annex.is_dir() or annex.is_symlink():
        raise AuditError("missing_file", str(annex), "not an annex folder")
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(annex, followlinks=False):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            mode = p.lstat().st_mode
            if stat.S_ISLNK(mode):
                raise AuditError("bad_archive", str(p), "a symbolic link inside the annex")
            if stat.S_ISREG(mode):
                out.append(p.relative_to(annex).as_posix())
            elif not stat.S_ISDIR(mode):
                raise AuditError("bad_archive", str(p), "not a regular file")
    marker = annex / SNAKEMAKE_MARKER
    if SNAKEMAKE_MARKER in out and marker.stat().st_size == 0:
        out.remove(SNAKEMAKE_MARKER)  # Snakemake's empty marker of a directory output
    return sorted(out)


def _seal_line(annex: Path) -> dict:
    path = annex / contract.LEDGER
    entries = [e for e in ledger.parse(path.read_bytes(), str(path)) if isinstance(e, dict)]
    if not entries or entries[-1].get("event") != "annex_sealed":
        raise AuditError("annex_not_verified", str(path), "its last line is not annex_sealed")
    return entries[-1]


def _spdx(license_id: str) -> str:
    if not license_id or any(c.isspace() for c in license_id) or "/" in license_id:
        raise AuditError("bad_args", "--license", f"{license_id!r} is not an SPDX identifier")
    return f"https://spdx.org/licenses/{license_id}"


def crate_json(annex: Path, license_id: str = LICENSE) -> bytes:
    """ro-crate-metadata.json for the annex: a function of its bytes alone."""
    from rocrate.rocrate import ROCrate  # here: it takes half a second to import

    files = _annex_files(annex)
    seal = _seal_line(annex)
    manifest = json.loads((annex / contract.MANIFEST).read_text(encoding="utf-8"))
    head, arm = str(seal["hash"]), str(manifest["arm"])
    crate = ROCrate()
    crate.name = f"secondseat annex: arm {arm}"
    crate.description = (
        f"The sealed annex of a preregistered audit (arm {arm}). Its head, {head}, is the "
        "hash of the ledger's last line and commits to every byte; obtain it from the seat "
        "itself and check with: python -m audit verify annex --head <head>."
    )
    crate.datePublished = str(seal.get("time", ""))[:10]  # the day the annex was sealed
    crate.license = crate.add_jsonld(
        {
            "@id": _spdx(license_id),
            "@type": "CreativeWork",
            "name": license_id,
            "description": f"the license the publisher chose for this annex (SPDX {license_id})",
        }
    )
    ids = [
        crate.add_jsonld(
            {
                "@id": f"#{name}",
                "@type": "PropertyValue",
                "name": name,
                "propertyID": kind,
                "value": value,
            }
        )
        for name, kind, value in [
            ("annex-head", "blake3 of the ledger's last line (annex_sealed)", head),
            ("arm", "secondseat arm", arm),
            ("prereg", "blake3 of the locked preregistration", manifest["prereg"]["blake3"]),
            *[
                (f"bundle-{role}", "blake3 content digest of a bundle table", digest)
                for role, digest in sorted(manifest["bundle"].items())
            ],
        ]
    ]
    top = crate.add_dataset(
        dest_path=f"{TOP}/",
        properties={
            "name": f"annex of arm {arm}",
            "description": "Every file the seal wrote; manifest.json lists each with its digests.",
        },
    )
    top["identifier"] = ids
    parts = []
    for rel in files:
        d = file_digests(annex / rel)
        props = {
            "name": rel,
            "description": ROLES.get(rel, "an output of the audit, as the seal copied it"),
            "encodingFormat": MEDIA.get(PurePosixPath(rel).suffix, "application/octet-stream"),
            "sha256": d["sha256"],
            "contentSize": str(d["bytes"]),
        }
        parts.append(crate.add_file(dest_path=f"{TOP}/{rel}", properties=props))
    top["hasPart"] = parts
    crate.root_dataset["hasPart"] = top
    body = crate.metadata.generate()
    return (json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _license_of(crate: Path, where: str) -> str:
    """The SPDX id a fetched crate names (it is then rebuilt and compared byte for byte)."""
    try:
        doc = json.loads(crate.read_bytes().decode("utf-8"))
        (root,) = [e for e in doc["@graph"] if isinstance(e, dict) and e.get("@id") == "./"]
        url = root["license"]["@id"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        raise AuditError("bad_archive", where, f"{CRATE} is not one publish wrote") from None
    prefix = "https://spdx.org/licenses/"
    if not isinstance(url, str) or not url.startswith(prefix):
        raise AuditError("bad_archive", where, f"{CRATE} names no SPDX license")
    return url[len(prefix) :]


def _info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = size, FILE_MODE, 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def publish(
    annex_dir: str,
    out_file: str,
    license_id: str = LICENSE,
    *,
    read_prereg: Callable[[Path], str],
) -> tuple[str, int]:
    """Write the archive; return (the annex head, the number of annex files).
    ``read_prereg``: the kind registry's reader of the annex's prereg (verify's)."""
    annex = Path(annex_dir)
    problems = verify(str(annex), read_prereg=read_prereg)
    if problems:
        raise AuditError(
            "annex_not_verified", annex_dir, f"{problems[0]} ({len(problems)} problems)"
        )
    crate = crate_json(annex, license_id)
    files = _annex_files(annex)
    out = Path(out_file)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with (
            os.fdopen(fd, "wb") as raw,
            tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar,
        ):
            tar.addfile(_info(CRATE, len(crate)), io.BytesIO(crate))
            for rel in files:
                with (annex / rel).open("rb") as f:
                    tar.addfile(_info(f"{TOP}/{rel}", os.fstat(f.fileno()).st_size), f)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return str(_seal_line(annex)["hash"]), len(files)


# --- fetch ---------------------------------------------------------------------------


def _member_name(name: str, where: str) -> str:
    if not name or "\0" in name or "\\" in name:
        raise AuditError("bad_archive", where, f"member {name!r} is not a relative path")
    pure = PurePosixPath(name)
    if pure.is_absolute() or name.startswith("/"):
        raise AuditError("bad_archive", where, f"member {name!r} is an absolute path")
    if any(p in ("..", ".", "") for p in name.split("/")):
        raise AuditError(
            "bad_archive", where, f"member {name!r} leaves the folder or is not normal"
        )
    if name != CRATE and (pure.parts[0] != TOP or len(pure.parts) < 2):
        raise AuditError(
            "bad_archive", where, f"member {name!r} is neither {CRATE} nor under {TOP}/"
        )
    return name


def _kind(m: tarfile.TarInfo) -> str | None:
    """Why a member may not be written, or None for a plain regular file."""
    if m.type in (tarfile.REGTYPE, tarfile.AREGTYPE):
        return None
    if m.type == tarfile.SYMTYPE:
        return f"a symbolic link (to {m.linkname!r})"
    if m.type == tarfile.LNKTYPE:
        return f"a hard link (to {m.linkname!r})"
    if m.type in (tarfile.CHRTYPE, tarfile.BLKTYPE):
        return "a device file"
    if m.type == tarfile.FIFOTYPE:
        return "a named pipe"
    if m.type == tarfile.DIRTYPE:
        return "a folder entry (publish writes files only)"
    return f"a member of type {m.type!r}, not a regular file"


def check_members(
    tar: tarfile.TarFile, where: str, max_file: int = MAX_FILE, max_total: int = MAX_TOTAL
) -> list[tarfile.TarInfo]:
    """Every member's header, checked before anything is written."""
    members: list[tarfile.TarInfo] = []
    seen: set[str] = set()
    total = 0
    while True:
        try:
            m = tar.next()
        except tarfile.TarError as e:
            raise AuditError("bad_archive", where, f"not a readable tar archive ({e})") from None
        if m is None:
            break
        name = _member_name(m.name, where)
        why = _kind(m)
        if why:
            raise AuditError("bad_archive", where, f"member {name!r} is {why}")
        if name.casefold() in seen:
            raise AuditError("bad_archive", where, f"member {name!r} appears twice")
        seen.add(name.casefold())
        if m.size > max_file:
            raise AuditError(
                "bad_archive", where, f"member {name!r} is {m.size} bytes, above {max_file}"
            )
        total += m.size
        if total > max_total:
            raise AuditError(
                "bad_archive", where, f"the members add up to more than {max_total} bytes"
            )
        if len(members) >= MAX_MEMBERS:
            raise AuditError("bad_archive", where, f"more than {MAX_MEMBERS} members")
        members.append(m)
    if CRATE not in seen:
        raise AuditError("bad_archive", where, f"no {CRATE}: not an archive publish wrote")
    return members


def _write_member(tar: tarfile.TarFile, m: tarfile.TarInfo, root: Path, where: str) -> None:
    dest = root
    parts = PurePosixPath(m.name).parts
    for part in parts[:-1]:
        dest = dest / part
        try:
            os.mkdir(dest, 0o755)
        except FileExistsError:
            if not stat.S_ISDIR(dest.lstat().st_mode):
                raise AuditError(
                    "bad_archive", where, f"{m.name}: {part} is not a folder"
                ) from None
    dest = dest / parts[-1]
    src = tar.extractfile(m)
    if src is None:
        raise AuditError("bad_archive", where, f"member {m.name!r} has no content")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(dest, flags, FILE_MODE)
    written = 0
    with os.fdopen(fd, "wb") as f:
        while chunk := src.read(1 << 20):
            written += len(chunk)
            if written > m.size:
                raise AuditError("bad_archive", where, f"member {m.name!r} is longer than it says")
            f.write(chunk)
    if written != m.size:
        raise AuditError("bad_archive", where, f"member {m.name!r} is cut short")


def fetch(
    archive: str,
    head: str,
    out_dir: str,
    tsa_cert: str | None = None,
    max_file: int = MAX_FILE,
    max_total: int = MAX_TOTAL,
    *,
    read_prereg: Callable[[Path], str],
) -> Path:
    """Unpack ``archive`` into ``out_dir`` only if its annex verifies with ``head``.
    ``read_prereg``: the kind registry's reader of the annex's prereg (verify's)."""
    if not HEX64.fullmatch(head or ""):
        raise AuditError("bad_args", "--head", f"{head!r} is not a 64-hex-digit head")
    src, out = Path(archive), Path(out_dir)
    try:
        st = src.lstat()
    except FileNotFoundError:
        raise AuditError("missing_file", archive, "no such file") from None
    if not stat.S_ISREG(st.st_mode):
        raise AuditError("bad_archive", archive, "not a regular file")
    if st.st_size > max_total + (max_total >> 4) + (1 << 20):
        raise AuditError("bad_archive", archive, f"{st.st_size} bytes; above the bound")
    made = not out.exists()
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise AuditError("bad_args", out_dir, "exists and is not a folder")
    if not made and any(out.iterdir()):
        raise AuditError("bad_args", out_dir, "is not empty: fetch writes into an empty folder")
    try:
        with tarfile.open(src, mode="r:") as tar:
            members = check_members(tar, archive, max_file, max_total)
    except tarfile.TarError as e:
        raise AuditError("bad_archive", archive, f"not a readable tar archive ({e})") from None
    if made and not out.parent.is_dir():
        raise AuditError("bad_args", out_dir, "its parent folder does not exist")
    out.mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=out))
    try:
        with tarfile.open(src, mode="r:") as tar:
            for m in members:
                _write_member(tar, m, work, archive)
        annex = work / TOP
        problems = verify(str(annex), head, tsa_cert=tsa_cert, read_prereg=read_prereg)
        if problems:
            raise AuditError(
                "annex_not_verified", archive, f"{problems[0]} ({len(problems)} problems)"
            )
        if (work / CRATE).read_bytes() != crate_json(annex, _license_of(work / CRATE, archive)):
            raise AuditError(
                "bad_archive", archive, f"{CRATE} is not the one this annex makes (edited)"
            )
        os.replace(annex, out / TOP)
        os.replace(work / CRATE, out / CRATE)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        if made:
            shutil.rmtree(out, ignore_errors=True)
        raise
    shutil.rmtree(work, ignore_errors=True)
    return out / TOP
