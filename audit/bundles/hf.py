"""Hugging Face datasets at a pinned commit: ``hf://datasets/<owner>/<name>@<40-hex>``.

``resolve`` turns a branch or tag into the commit it names (to paste into a config);
``fetch`` downloads the files a prereg names at that commit through ``huggingface_hub``
(``snapshot_download``), checks each file's sha256 against the Hub's own record of it
at that commit, and writes them with ``hf-source.json`` (repo, commit, and per file
its sha256 and the Hub's record) into a bundle folder the lock reads
(``audit/bundles/hf_source.py``: the lock rehashes the files against the record and never
touches the network).

The Hub's record: online, ``HfApi.get_paths_info`` (a file stored in LFS has its
sha256 there, ``lfs.sha256``; any other file its git blob id). With
``HF_HUB_OFFLINE=1`` nothing may be asked of the Hub, and the record is read from the
cache the download filled: ``scan_cache_dir`` lists each cached file's blob, named by
the ETag the Hub served for that file and commit (the LFS sha256, or the git blob id).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from audit.bundles import parquet_bounds
from audit.bundles.hf_source import RECORD, git_blob_id, sha256_file
from audit.errors import AuditError
from audit.files import open_regular, write_atomic

URI = re.compile(
    r"^hf://datasets/(?P<repo>[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)@(?P<rev>[^\s@]+)$"
)
COMMIT = re.compile(r"^[0-9a-f]{40}$")
MAX_FILE = 8 << 30  # a file of a fetched bundle: the Hub's declared size, then the bytes


def parse(uri: str) -> tuple[str, str]:
    """(repo id, revision) of ``hf://datasets/<owner>/<name>@<revision>``."""
    m = URI.match(uri)
    if not m:
        raise AuditError("bad_uri", uri, "expected hf://datasets/<owner>/<name>@<revision>")
    return m["repo"], m["rev"]


def pinned(uri: str) -> tuple[str, str]:
    """(repo id, commit); a branch or tag is refused until resolved to a commit."""
    repo, rev = parse(uri)
    if not COMMIT.match(rev):
        raise AuditError(
            "unpinned",
            uri,
            f"{rev!r} is not a 40-hex commit; a branch or tag can move. "
            f"Pin it: python -m audit resolve hf://datasets/{repo}@{rev}",
        )
    return repo, rev


def _hub_error(uri: str, err: Exception) -> AuditError:
    return AuditError("hub_unavailable", uri, f"{type(err).__name__}: {str(err).splitlines()[0]}")


def resolve(uri: str) -> str:
    """The commit a revision names now (asks the Hub)."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError, OfflineModeIsEnabled

    repo, rev = parse(uri)
    try:
        info = HfApi().dataset_info(repo, revision=rev)
    except (HfHubHTTPError, OfflineModeIsEnabled, OSError) as e:
        raise _hub_error(uri, e) from None
    if not info.sha or not COMMIT.match(info.sha):
        raise AuditError("hub_unavailable", uri, f"the Hub named no commit for {rev!r}")
    return info.sha


def _record_online(repo: str, commit: str, files: list[str], uri: str) -> dict[str, dict]:
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    try:
        infos = HfApi().get_paths_info(repo, files, repo_type="dataset", revision=commit)
    except (HfHubHTTPError, OSError) as e:
        raise _hub_error(uri, e) from None
    out: dict[str, dict] = {}
    for info in infos:
        if getattr(info, "blob_id", None) is None:
            continue  # a folder
        if info.lfs is not None:
            out[info.path] = {"kind": "lfs_sha256", "value": info.lfs.sha256, "size": info.size}
        else:
            out[info.path] = {"kind": "git_blob_id", "value": info.blob_id, "size": info.size}
    return out


def _record_offline(repo: str, commit: str, files: list[str]) -> dict[str, dict]:
    from huggingface_hub import scan_cache_dir

    out: dict[str, dict] = {}
    for cached in scan_cache_dir().repos:
        if cached.repo_id != repo or cached.repo_type != "dataset":
            continue
        for revision in cached.revisions:
            if revision.commit_hash != commit:
                continue
            for f in revision.files:
                name = f.file_path.relative_to(revision.snapshot_path).as_posix()
                if name in files:
                    etag = f.blob_path.name
                    kind = "lfs_sha256" if re.fullmatch(r"[0-9a-f]{64}", etag) else "git_blob_id"
                    out[name] = {"kind": kind, "value": etag, "size": f.size_on_disk}
    return out


def _matches(path: Path, hub: dict[str, Any]) -> tuple[bool, str]:
    sha = sha256_file(path)
    if hub["kind"] == "lfs_sha256":
        return sha == hub["value"], sha
    return git_blob_id(path) == hub["value"], sha


def fetch(uri: str, files: list[str], out: str, optional: list[str] | None = None) -> dict:
    """Download ``files`` (and ``optional`` ones, if the commit has them) into ``out``."""
    from huggingface_hub import constants, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    from huggingface_hub.utils import disable_progress_bars, logging

    repo, commit = pinned(uri)
    disable_progress_bars()  # stderr holds only the one line of a refusal
    logging.set_verbosity_error()
    optional = [f for f in (optional or []) if f not in files]
    wanted = [*files, *optional]
    offline = bool(constants.HF_HUB_OFFLINE)
    # online, the Hub's record first: a file it declares past the bound is never downloaded
    hub = {} if offline else _record_online(repo, commit, wanted, uri)
    for name, entry in sorted(hub.items()):
        size = entry.get("size")
        if isinstance(size, int) and size > MAX_FILE:
            raise AuditError(
                "too_large",
                f"{uri}:{name}",
                f"the Hub declares {size} bytes, more than {MAX_FILE}; nothing was downloaded",
            )
    try:
        local = Path(
            snapshot_download(
                repo_id=repo, repo_type="dataset", revision=commit, allow_patterns=wanted
            )
        )
    except LocalEntryNotFoundError:
        raise AuditError(
            "missing_file", uri, "not in the local cache (HF_HUB_OFFLINE is set)"
        ) from None
    except (HfHubHTTPError, OSError) as e:
        raise _hub_error(uri, e) from None
    if offline:
        hub = _record_offline(repo, commit, wanted)
    record: dict[str, Any] = {
        "format": "secondseat-hf-source-v1",
        "uri": f"hf://datasets/{repo}@{commit}",
        "repo": repo,
        "repo_type": "dataset",
        "commit": commit,
        "checked_against": "cache" if offline else "hub",
        "files": {},
    }
    for name in wanted:
        path = local / name
        if not path.exists():
            if name in optional:
                continue
            raise AuditError("missing_file", f"{uri}:{name}", "not in the dataset at this commit")
        if name not in hub:
            raise AuditError("missing_file", f"{uri}:{name}", "the Hub has no record of this file")
        parquet = bounded(path, f"{uri}:{name}")
        ok, sha = _matches(path, hub[name])
        if not ok:
            raise AuditError(
                "hash_mismatch",
                f"{uri}:{name}",
                f"sha256 {sha} does not match the Hub's {hub[name]['kind']} {hub[name]['value']}",
            )
        if parquet:  # the bytes the Hub recorded: within the read bound?
            parquet_bounds.check(path, f"{uri}:{name}")
        record["files"][name] = {"sha256": sha, "size": path.stat().st_size, "hub": hub[name]}
    _write_bundle(local, record, Path(out))
    return record


def bounded(path: Path, shown: str) -> bool:
    """too_large before a fetched file is hashed: over MAX_FILE bytes (a folder, FIFO or
    device in the cache is refused as not a regular file). True for a parquet file, whose
    read bound (audit/bundles/parquet_bounds.py) is checked once its bytes are the Hub's."""
    with open_regular(path, shown) as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_FILE:
            raise AuditError("too_large", shown, f"{size} bytes, more than {MAX_FILE}")
        return f.read(4) == b"PAR1"


def _write_bundle(local: Path, record: dict, out: Path) -> None:
    """Copy the checked files and the record into a new folder, then rename it into place."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for name in record["files"]:
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(local / name, tmp / name)
        write_atomic(tmp / RECORD, json.dumps(record, indent=2, sort_keys=True) + "\n")
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
