"""publish and fetch-annex: one deterministic archive with an RO-Crate, and a fetch that
trusts nothing the archive says (docs/seal.md, "Publishing an annex").

The annex is a real demo run's. The hostile archives are built here with tarfile,
member by member: each must be refused with one line and exit 2 before anything
is left in DIR, and nothing may appear beside DIR.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, annex_head, run_audit, run_dag

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sealed(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    work = tmp_path_factory.mktemp("seat")
    p = run_dag(work, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert p.returncode == 0, p.stderr[-3000:]
    annex = work / "results" / "demo" / "annex"
    return annex, annex_head(annex)


@pytest.fixture(scope="module")
def archive(sealed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("published") / "demo-annex.tar"
    r = run_audit("publish", sealed[0], "--out", out)
    assert r.code == 0, r.stderr
    return out


def _listing(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def test_publish_twice_and_from_another_copy_gives_the_same_bytes(
    sealed, archive: Path, tmp_path: Path
) -> None:
    again = tmp_path / "again.tar"
    assert run_audit("publish", sealed[0], "--out", again).code == 0
    assert again.read_bytes() == archive.read_bytes()
    # another machine: another folder, other modes and times on every file
    copy = tmp_path / "elsewhere" / "annex"
    shutil.copytree(sealed[0], copy)
    for p in copy.rglob("*"):
        if p.is_file():
            p.chmod(0o600)
            os.utime(p, (1_000_000_000, 1_000_000_000))
    third = tmp_path / "third.tar"
    assert run_audit("publish", copy, "--out", third).code == 0
    assert third.read_bytes() == archive.read_bytes()


def test_the_archive_is_sorted_with_fixed_owners_modes_and_times(sealed, archive: Path) -> None:
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    assert names[0] == "ro-crate-metadata.json"
    assert names[1:] == sorted(names[1:])
    annex_files = sorted(
        f"annex/{p.relative_to(sealed[0]).as_posix()}"
        for p in sealed[0].rglob("*")
        if p.is_file() and p.name != ".snakemake_timestamp"
    )
    assert names[1:] == annex_files
    for m in members:
        assert (m.mode, m.uid, m.gid, m.uname, m.gname, m.mtime) == (0o644, 0, 0, "", "", 0)
        assert m.type == tarfile.REGTYPE


def test_the_crate_names_head_arm_prereg_and_bundle(sealed, archive: Path) -> None:
    annex, head = sealed
    with tarfile.open(archive) as tar:
        crate = json.load(tar.extractfile("ro-crate-metadata.json"))
    graph = {e["@id"]: e for e in crate["@graph"]}
    manifest = json.loads((annex / "manifest.json").read_text())
    assert graph["#annex-head"]["value"] == head
    assert graph["#arm"]["value"] == "demo"
    assert graph["#prereg"]["value"] == manifest["prereg"]["blake3"]
    for role, digest in manifest["bundle"].items():
        assert graph[f"#bundle-{role}"]["value"] == digest
    entry = graph["annex/lock/prereg.yaml"]
    import hashlib

    assert entry["sha256"] == hashlib.sha256((annex / "lock/prereg.yaml").read_bytes()).hexdigest()
    assert graph["./"]["license"] == {"@id": "https://spdx.org/licenses/CC-BY-4.0"}


def test_fetch_verifies_and_the_crate_validates(sealed, archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "fetched"
    r = run_audit("fetch-annex", archive, "--head", sealed[1], "--out", out)
    assert r.code == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["annex", "ro-crate-metadata.json"]
    assert run_audit("verify", out / "annex", "--head", sealed[1]).code == 0
    # roc-validator in its own environment (it pins rich below import-linter's), offline
    env_dir = ROOT / ".venvs" / "crate-check"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["UV_PROJECT_ENVIRONMENT"] = str(env_dir)
    uv = os.environ.get("UV", "uv")
    sync = [uv, "sync", "--project", str(ROOT), "--frozen", "-q", "--only-group", "crate-check"]
    subprocess.run(sync, check=True, env=env, cwd=ROOT)
    import rocrate

    context = Path(rocrate.__file__).parent / "data" / "ro-crate.jsonld"
    check = [str(env_dir / "bin" / "python"), str(ROOT / "tests" / "crate_check.py")]
    cache = tmp_path / "http-cache"
    p = subprocess.run(
        [*check, str(out), str(context), str(cache), "REQUIRED"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "passed", p.stdout + p.stderr
    # one recommendation is left, and it is one the annex cannot know: who publishes it
    p = subprocess.run(
        [*check, str(out), str(context), str(cache), "RECOMMENDED"],
        capture_output=True,
        text=True,
        check=False,
    )
    issues = [ln for ln in p.stdout.splitlines() if ln.startswith(("REQUIRED", "RECOMMENDED"))]
    assert issues == [
        "RECOMMENDED: The Root Data Entity SHOULD have a `publisher` property "
        "(Organization or Person)"
    ], p.stdout + p.stderr


# --- hostile archives ------------------------------------------------------------------


def _member(name: str, data: bytes = b"x", **fields) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for k, v in fields.items():
        setattr(info, k, v)
    return info, data


def _hostile(path: Path, archive: Path, extra: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    """The published archive with ``extra`` members put first (before any real one)."""
    with tarfile.open(archive) as src, tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as dst:
        for info, data in extra:
            dst.addfile(info, io.BytesIO(data) if info.isreg() else None)
        for m in src.getmembers():
            dst.addfile(m, src.extractfile(m))
    return path


def _refused(archive: Path, head: str, tmp_path: Path, words: str) -> None:
    before = _listing(tmp_path)
    out = tmp_path / "out"
    r = run_audit("fetch-annex", archive, "--head", head, "--out", out)
    assert r.code == 2, (r.code, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error["), r.stderr
    assert words in lines[0], lines[0]
    assert not out.exists()  # fetch made it, and removed it
    assert _listing(tmp_path) == before  # nothing beside it either


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("annex/../../escaped.txt", "leaves the folder"),
        ("../escaped.txt", "leaves the folder"),
        ("/tmp/escaped-by-fetch.txt", "absolute path"),
        ("annex/./x", "leaves the folder"),
        ("elsewhere/x", "neither ro-crate-metadata.json nor under annex/"),
    ],
)
def test_a_path_out_of_the_folder_is_refused(
    sealed, archive: Path, tmp_path: Path, name: str, words: str
) -> None:
    bad = _hostile(tmp_path / "bad.tar", archive, [_member(name)])
    _refused(bad, sealed[1], tmp_path, words)
    assert not Path("/tmp/escaped-by-fetch.txt").exists()


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"type": tarfile.SYMTYPE, "linkname": "/etc/passwd"}, "symbolic link"),
        ({"type": tarfile.LNKTYPE, "linkname": "annex/README.md"}, "hard link"),
        ({"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 3}, "device file"),
        ({"type": tarfile.BLKTYPE, "devmajor": 8, "devminor": 0}, "device file"),
        ({"type": tarfile.FIFOTYPE}, "named pipe"),
    ],
)
def test_links_and_devices_are_refused(
    sealed, archive: Path, tmp_path: Path, fields: dict, words: str
) -> None:
    info, _ = _member("annex/zz-odd", b"", **fields)
    info.size = 0
    bad = _hostile(tmp_path / "bad.tar", archive, [(info, b"")])
    _refused(bad, sealed[1], tmp_path, words)


def test_an_oversized_member_is_refused_from_its_header(
    sealed, archive: Path, tmp_path: Path
) -> None:
    """A header claiming 2 GiB (above the 1 GiB bound per file): refused before any byte
    of it is read; the archive itself is small (the claimed data is not there)."""
    info = tarfile.TarInfo("annex/huge.bin")
    info.size = 2 << 30
    bad = tmp_path / "bad.tar"
    with bad.open("wb") as f:
        f.write(info.tobuf(format=tarfile.PAX_FORMAT))
        f.write(b"\0" * 1024)
    _refused(bad, sealed[1], tmp_path, "above 1073741824")


def test_a_member_named_twice_is_refused(sealed, archive: Path, tmp_path: Path) -> None:
    readme = (sealed[0] / "README.md").read_bytes()
    bad = _hostile(tmp_path / "bad.tar", archive, [_member("annex/README.md", readme)])
    _refused(bad, sealed[1], tmp_path, "appears twice")


def test_an_edited_file_or_crate_or_another_head_is_refused(
    sealed, archive: Path, tmp_path: Path
) -> None:
    # an annex file edited inside the archive: the annex does not verify with the head
    def rewrite(path: Path, name: str, change) -> Path:
        with tarfile.open(archive) as src, tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as d:
            for m in src.getmembers():
                data = src.extractfile(m).read()
                if m.name == name:
                    data = change(data)
                    m.size = len(data)
                d.addfile(m, io.BytesIO(data))
        return path

    edited = rewrite(tmp_path / "e.tar", "annex/census.txt", lambda b: b.replace(b"1", b"2", 1))
    _refused(edited, sealed[1], tmp_path, "census.txt")
    crate = rewrite(
        tmp_path / "c.tar", "ro-crate-metadata.json", lambda b: b.replace(b"arm demo", b"arm dem0")
    )
    _refused(crate, sealed[1], tmp_path, "is not the one this annex makes")
    other = ("0" if sealed[1][0] != "0" else "1") + sealed[1][1:]
    _refused(archive, other, tmp_path, "annex_not_verified")


def test_fetch_writes_only_into_an_empty_folder(sealed, archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "busy"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    r = run_audit("fetch-annex", archive, "--head", sealed[1], "--out", out)
    assert r.code == 2 and "is not empty" in r.stderr
    assert _listing(out) == ["mine.txt"]
