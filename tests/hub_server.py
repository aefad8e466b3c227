"""A small stand-in for the Hugging Face Hub on 127.0.0.1, for tests with no network.

It answers only the endpoints ``huggingface_hub`` uses for a public dataset here, as
the Hub's API documents them: a revision's info (``/api/datasets/<repo>/revision/<rev>``),
the tree of a commit (``/api/datasets/<repo>/tree/<commit>``), paths-info (POST
``/api/datasets/<repo>/paths-info/<commit>``) and file downloads
(``/datasets/<repo>/resolve/<commit>/<path>``, HEAD and GET, with the ``X-Repo-Commit``,
``X-Linked-Etag`` and ``X-Linked-Size`` headers). Files named in ``lfs`` are answered
as LFS files (their sha256 is their ETag and their ``lfs.oid``); others as plain git
blobs. ``lie`` maps a file to the sha256 the API claims for it, to test a mismatch.
Every request line is kept in ``requests``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Repo:
    repo_id: str
    commits: dict[str, dict[str, bytes]]  # commit -> {path: bytes}
    refs: dict[str, str]  # branch or tag -> commit
    lfs: set[str] = field(default_factory=set)
    lie: dict[str, str] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)  # a file's size as the API claims it

    def entry(self, path: str, data: bytes) -> dict:
        size = self.sizes.get(path, len(data))
        e = {"type": "file", "path": path, "size": size, "oid": git_blob_id(data)}
        if path in self.lfs:
            sha = self.lie.get(path, hashlib.sha256(data).hexdigest())
            e["lfs"] = {"oid": sha, "size": size, "pointerSize": 134}
        return e


class Hub:
    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.requests: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, code: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _json(self, obj: object, code: int = 200) -> None:
                self._send(code, json.dumps(obj).encode(), {"Content-Type": "application/json"})

            def _not_found(self, kind: str) -> None:
                body = json.dumps({"error": f"{kind} not found"}).encode()
                self._send(404, body, {"X-Error-Code": kind, "Content-Type": "application/json"})

            def _route(self) -> None:
                hub.requests.append(f"{self.command} {self.path}")
                url = urlparse(self.path)
                path = unquote(url.path)
                r = hub.repo
                api = f"/api/datasets/{r.repo_id}/"
                dl = f"/datasets/{r.repo_id}/resolve/"
                if path.startswith(api + "revision/"):
                    rev = path.removeprefix(api + "revision/")
                    commit = r.refs.get(rev, rev)
                    if commit not in r.commits:
                        return self._not_found("RevisionNotFound")
                    files = r.commits[commit]
                    return self._json(
                        {
                            "id": r.repo_id,
                            "sha": commit,
                            "private": False,
                            "siblings": [{"rfilename": p} for p in sorted(files)],
                        }
                    )
                if path.startswith(api + "tree/"):
                    commit = path.removeprefix(api + "tree/").split("/")[0]
                    commit = r.refs.get(commit, commit)
                    if commit not in r.commits:
                        return self._not_found("RevisionNotFound")
                    return self._json([r.entry(p, d) for p, d in sorted(r.commits[commit].items())])
                if path.startswith(api + "paths-info/") and self.command == "POST":
                    commit = path.removeprefix(api + "paths-info/")
                    commit = r.refs.get(commit, commit)
                    if commit not in r.commits:
                        return self._not_found("RevisionNotFound")
                    n = int(self.headers.get("Content-Length") or 0)
                    form = parse_qs(self.rfile.read(n).decode())
                    files = r.commits[commit]
                    return self._json(
                        [r.entry(p, files[p]) for p in form.get("paths", []) if p in files]
                    )
                if path.startswith(dl):
                    commit, _, name = path.removeprefix(dl).partition("/")
                    commit = r.refs.get(commit, commit)
                    files = r.commits.get(commit)
                    if files is None:
                        return self._not_found("RevisionNotFound")
                    if name not in files:
                        return self._not_found("EntryNotFound")
                    data = files[name]
                    e = r.entry(name, data)
                    etag = e["lfs"]["oid"] if "lfs" in e else e["oid"]
                    return self._send(
                        200,
                        data,
                        {
                            "X-Repo-Commit": commit,
                            "ETag": f'"{etag}"',
                            "X-Linked-Etag": f'"{etag}"',
                            "X-Linked-Size": str(len(data)),
                            "Content-Type": "application/octet-stream",
                        },
                    )
                return self._not_found("Unknown")

            do_GET = do_HEAD = do_POST = _route

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Hub:  # noqa: PYI034
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
