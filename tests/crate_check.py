"""Validate an RO-Crate with roc-validator, offline: run in .venvs/crate-check.

    python tests/crate_check.py CRATE_DIR CONTEXT_JSONLD CACHE_DIR [SEVERITY]

The validator resolves the crate's JSON-LD context over HTTP through its own
cache. Tests have no network, so the cache is filled first with the RO-Crate 1.3
context that the rocrate library ships (CONTEXT_JSONLD, read from the referee's
environment), and the validator runs offline: anything else it would fetch is a
cache miss and fails the run rather than reaching the network. Prints each issue
and exits 0 only when the crate passes at SEVERITY (default RECOMMENDED).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import requests
from requests_cache import CachedSession
from rocrate_validator import services
from urllib3 import HTTPResponse


def main(crate: str, context: str, cache: str, severity: str = "RECOMMENDED") -> int:
    doc = json.loads(Path(context).read_text(encoding="utf-8"))
    url = doc["@id"]  # https://w3id.org/ro/crate/1.3/context
    session = CachedSession(
        cache_name=cache, backend="sqlite", allowable_methods=("GET",), expire_after=-1
    )
    body = Path(context).read_bytes()
    headers = {"Content-Type": "application/ld+json"}
    resp = requests.Response()
    resp.status_code, resp.url, resp.encoding = 200, url, "utf-8"
    resp.raw = HTTPResponse(
        body=io.BytesIO(body),
        headers=headers,
        status=200,
        request_url=url,
        preload_content=False,
    )
    resp._content = body
    resp.headers.update(headers)
    resp.request = requests.Request("GET", url).prepare()
    session.cache.save_response(resp)
    session.close()
    result = services.validate(
        {
            "rocrate_uri": crate,
            "offline": True,
            "cache_path": cache,
            "requirement_severity": severity,
        }
    )
    for issue in result.get_issues():
        print(f"{issue.severity.name}: {issue.message}")
    print("passed" if result.passed() else "failed")
    return 0 if result.passed() else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
