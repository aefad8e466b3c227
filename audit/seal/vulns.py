"""vulnerabilities.json: known advisories against the locked environments' exact pins.

``python -m audit.seal.vulns --src SRC --out FILE [--pip-audit CMD] [--disabled]``

For each environment the seat runs in (the referee's, each contestant's), the
exact pins come from the lock (``uv export --frozen --no-hashes``), and
pip-audit looks each pinned version up in the package index's vulnerability
data (``--vulnerability-service pypi --no-deps --disable-pip``: nothing is
resolved or installed). Each environment gets either what was found (every
advisory with package, version, id, aliases and fixed versions; the packages
the index had no data for) or ``{"audited": false, "reason": ...}``.

The file depends on the day (advisories are published after a lock), so it is
volatile in the annex (audit/seal/contract.py), and it never blocks the audit:
no network, a timeout, pip-audit or uv missing, a disabled config: the reason
is recorded and the exit status is 0. A reproducible environment is not
necessarily a safe one; this file says which packages of it are known unsafe.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from audit.errors import disk_full, report
from audit.files import write_atomic
from audit.seal.contract import VULNS_PREFIX

FORMAT = "secondseat-vulnerabilities-v1"
SERVICE = "pypi"
# What each environment is built from (pyproject.toml's groups): the referee's is
# the default sync (the project's dependencies and the default groups).
ENVIRONMENTS = {
    "referee": [],
    "impl-pandas": ["--only-group", "impl-pandas"],
    "impl-pyarrow": ["--only-group", "impl-pyarrow"],
}
SHOWN = 5  # advisories named in the one-line summary; the file holds them all
TIMEOUT = 240  # seconds for one environment's pip-audit, all requests included
SOCKET_TIMEOUT = 15  # pip-audit's own, per request
DISABLED = "disabled by config (vulnerability_audit: false)"
SYNC_HINT = "UV_PROJECT_ENVIRONMENT=.venvs/vulns uv sync --frozen --only-group vulns"
NOTE = (
    "A reproducible environment is not necessarily a safe one: these are the advisories "
    "known on the day of the audit against the exact versions of the lock."
)


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no message"


def _not(reason: str, detail: str = "") -> dict:
    """An environment not audited: a short reason (the report's line), the detail."""
    return {"audited": False, "reason": reason, **({"detail": detail} if detail else {})}


def _no_pip_audit(pip_audit: str) -> dict:
    return _not("pip-audit not found", f"{pip_audit}; sync it: {SYNC_HINT}")


def _run(cmd: list[str], cwd: str | None, timeout: float) -> subprocess.CompletedProcess | str:
    """The finished process, or why it could not run (a string)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        return subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError:
        return "not found"
    except PermissionError:
        return "not executable"
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g} s"


def export_pins(src: str, group_args: list[str], timeout: float) -> tuple[str | None, dict]:
    """(the environment's exact pins as a requirements text, {}) or (None, why not)."""
    cmd = [
        os.environ.get("UV", "uv"),  # the uv that runs this (uv run sets UV), as audit.core.envs
        "export",
        "--frozen",
        "--no-hashes",
        "--no-emit-project",
        "--no-header",
        "--no-annotate",
        *group_args,
    ]
    done = _run(cmd, src, timeout)
    if isinstance(done, str):
        return None, _not(f"uv export {done}", "the exact pins come from uv.lock through uv")
    if done.returncode != 0:
        return None, _not(f"uv export failed (exit {done.returncode})", _last_line(done.stderr))
    return done.stdout, {}


def parse(report: dict) -> dict:
    """One environment's entry from pip-audit's JSON report."""
    deps = report.get("dependencies")
    if not isinstance(deps, list):
        return _not("pip-audit's report has no dependency list")
    advisories, skipped, audited = [], [], []
    for d in deps:
        if not isinstance(d, dict) or not isinstance(d.get("name"), str):
            continue
        if d.get("skip_reason"):
            skipped.append({"package": d["name"], "reason": str(d["skip_reason"])})
            continue
        audited.append(d["name"])
        for v in d.get("vulns") or []:
            advisories.append(
                {
                    "package": d["name"],
                    "version": str(d.get("version", "")),
                    "id": str(v.get("id", "")),
                    "aliases": sorted(str(a) for a in v.get("aliases") or []),
                    "fix_versions": [str(f) for f in v.get("fix_versions") or []],
                }
            )
    if not audited:
        if not skipped:
            return _not("no pinned package to audit")
        return _not(
            "no advisory data reachable",
            f"the index returned no advisory data for any of {len(skipped)} pinned package(s); "
            f"first: {skipped[0]['reason']}",
        )
    advisories.sort(key=lambda a: (a["package"], a["id"]))
    return {
        "audited": True,
        "packages_audited": len(audited),
        "advisories": advisories,
        "not_audited": sorted(skipped, key=lambda s: s["package"]),
    }


def audit_one(src: str, group_args: list[str], pip_audit: str, timeout: float) -> dict:
    pins, why = export_pins(src, group_args, timeout)
    if pins is None:
        return why
    with tempfile.TemporaryDirectory(prefix="secondseat-vulns-") as tmp:
        reqs = Path(tmp, "requirements.txt")
        reqs.write_text(pins, encoding="utf-8")
        cmd = [
            pip_audit,
            "-r",
            str(reqs),
            "--no-deps",
            "--disable-pip",
            "--vulnerability-service",
            SERVICE,
            "--format",
            "json",
            "--progress-spinner",
            "off",
            "--timeout",
            str(SOCKET_TIMEOUT),
        ]
        done = _run(cmd, tmp, timeout)
    if done == "not found":
        return _no_pip_audit(pip_audit)
    if isinstance(done, str):
        return _not(f"pip-audit {done}", pip_audit)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        report = None
    if not isinstance(report, dict):
        # pip-audit exits 1 when it finds advisories, with its report; without one it failed
        return _not(f"pip-audit failed (exit {done.returncode})", _last_line(done.stderr))
    return parse(report)


def audit(
    src: str, pip_audit: str = "pip-audit", enabled: bool = True, timeout: float = TIMEOUT
) -> dict:
    if os.sep in pip_audit:  # a path: it runs from a temporary folder
        pip_audit = os.path.abspath(pip_audit)
    if enabled and shutil.which(pip_audit) is None:
        # said before anything runs: without pip-audit the pins are not worth exporting
        envs = {name: _no_pip_audit(pip_audit) for name in ENVIRONMENTS}
    elif enabled:
        with ThreadPoolExecutor(max_workers=len(ENVIRONMENTS)) as pool:
            futures = {
                name: pool.submit(audit_one, src, args, pip_audit, timeout)
                for name, args in ENVIRONMENTS.items()
            }
            envs = {name: f.result() for name, f in futures.items()}
    else:
        envs = {name: _not(DISABLED) for name in ENVIRONMENTS}
    return {
        "format": FORMAT,
        "service": SERVICE,
        "checked_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "note": NOTE,
        "environments": envs,
    }


def summary(doc: dict) -> str:
    """One line: whether each environment was audited and what was found."""
    envs = doc.get("environments") if isinstance(doc, dict) else None
    if not isinstance(envs, dict) or not envs:
        return "not audited: no environment in vulnerabilities.json"
    entries = [e if isinstance(e, dict) else {} for e in envs.values()]
    reasons = {str(e.get("reason")) for e in entries if not e.get("audited")}
    if not any(e.get("audited") for e in entries) and len(reasons) == 1:
        return f"not audited: {reasons.pop()}"
    parts = []
    for name, e in envs.items():
        e = e if isinstance(e, dict) else {}
        if not e.get("audited"):
            parts.append(f"{name} not audited ({e.get('reason')})")
            continue
        adv = e.get("advisories") or []
        found = (
            f"{len(adv)} known advisor{'y' if len(adv) == 1 else 'ies'} ("
            + ", ".join(f"{a.get('package')} {a.get('version')} {a.get('id')}" for a in adv[:SHOWN])
            + (f" and {len(adv) - SHOWN} more" if len(adv) > SHOWN else "")
            + ")"
            if adv
            else "no known advisory"
        )
        missed = len(e.get("not_audited") or [])
        parts.append(
            f"{name} {found} in {e.get('packages_audited')} package(s)"
            + (f", {missed} without advisory data" if missed else "")
        )
    return "; ".join(parts)


def line_of(res: Path) -> str:
    """The report's and certificate's line (contract.VULNS_PREFIX + summary); never raises."""
    path = Path(res) / "vulnerabilities.json"
    if not path.is_file():
        text = "not audited: no vulnerability audit in this run"
    else:
        try:
            text = summary(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, AttributeError, TypeError):  # a malformed file
            text = "not audited: vulnerabilities.json is unreadable"
    return f"{VULNS_PREFIX}{text}."


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m audit.seal.vulns", description=__doc__)
    ap.add_argument("--src", required=True, help="the repository (pyproject.toml, uv.lock)")
    ap.add_argument("--out", required=True, help="where to write vulnerabilities.json")
    ap.add_argument("--pip-audit", default="pip-audit", help="the pip-audit program")
    ap.add_argument("--disabled", action="store_true", help="record 'disabled by config'")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per environment")
    a = ap.parse_args(argv)
    doc = audit(a.src, a.pip_audit, not a.disabled, a.timeout)
    try:
        write_atomic(a.out, json.dumps(doc, indent=2, sort_keys=True) + "\n")
    except OSError as err:
        full = disk_full(err)
        if full is None:
            raise
        return report(full)
    print(f"vulnerability audit: {summary(doc)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
