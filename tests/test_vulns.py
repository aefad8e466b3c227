"""The vulnerability audit of the locked environments (audit/seal/vulns.py).

A fake pip-audit on PATH stands for the real one: it records the arguments and
the requirements file it was given, and prints a report in pip-audit's JSON
form (the form pip-audit 2.10 writes with --format json: a "dependencies" list
of {name, version, vulns: [{id, fix_versions, aliases, description}]} or
{name, skip_reason}). The expected entries are read off that fixed report by
hand. The pins are exported from the repository's real uv.lock by uv.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import jsonschema
import yaml

from audit.seal import contract, vulns

ROOT = Path(__file__).resolve().parents[1]

REPORT = {
    "dependencies": [
        {
            "name": "urllib3",
            "version": "2.8.0",
            "vulns": [
                {
                    "id": "GHSA-aaaa-bbbb-cccc",
                    "fix_versions": ["2.8.1", "3.0.0"],
                    "aliases": ["CVE-2026-0002", "CVE-2026-0001"],
                    "description": "a made-up advisory",
                }
            ],
        },
        {"name": "six", "version": "1.17.0", "vulns": []},
        {"name": "blake3", "skip_reason": "Dependency not found on PyPI: blake3 (1.0.11)"},
    ],
    "fixes": [],
}


def _fake(tmp_path: Path, body: str) -> Path:
    """A pip-audit on PATH running `body` (Python) after logging its arguments and input."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "calls"
    exe = bin_dir / "pip-audit"
    exe.write_text(
        f"#!{sys.executable}\n"
        "import json, sys, time, uuid\n"
        "from pathlib import Path\n"
        "args = sys.argv[1:]\n"
        "reqs = Path(args[args.index('-r') + 1]).read_text()\n"
        f"log = Path({str(log)!r}); log.mkdir(exist_ok=True)\n"
        "(log / uuid.uuid4().hex).write_text(json.dumps({'args': args, 'reqs': reqs}))\n" + body,
        encoding="utf-8",
    )
    exe.chmod(0o755)
    return log


def _run(tmp_path, monkeypatch, *extra: str) -> dict:
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "res" / "vulnerabilities.json"
    assert vulns.main(["--src", str(ROOT), "--out", str(out), *extra]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _calls(log: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in log.iterdir()] if log.is_dir() else []


def test_advisories_are_parsed_per_environment(tmp_path, monkeypatch):
    # pip-audit exits 1 when it finds advisories, with its report on stdout
    log = _fake(tmp_path, f"print(json.dumps({REPORT!r}))\nsys.exit(1)\n")
    doc = _run(tmp_path, monkeypatch)
    assert sorted(doc["environments"]) == ["impl-pandas", "impl-pyarrow", "referee"]
    expected = {
        "audited": True,
        "packages_audited": 2,  # urllib3 and six; blake3 was skipped
        "advisories": [
            {
                "package": "urllib3",
                "version": "2.8.0",
                "id": "GHSA-aaaa-bbbb-cccc",
                "aliases": ["CVE-2026-0001", "CVE-2026-0002"],
                "fix_versions": ["2.8.1", "3.0.0"],
            }
        ],
        "not_audited": [
            {"package": "blake3", "reason": "Dependency not found on PyPI: blake3 (1.0.11)"}
        ],
    }
    for env in doc["environments"].values():
        assert env == expected
    line = vulns.summary(doc)
    assert "referee 1 known advisory (urllib3 2.8.0 GHSA-aaaa-bbbb-cccc) in 2 package(s)" in line
    assert "1 without advisory data" in line
    # each environment's exact pins, from uv.lock, audited without resolution or pip
    calls = _calls(log)
    assert len(calls) == 3
    for c in calls:
        a = c["args"]
        assert {"--no-deps", "--disable-pip"} <= set(a)
        assert a[a.index("--vulnerability-service") + 1] == "pypi"
        assert a[a.index("--format") + 1] == "json"
    by_pins = {
        (
            "pandas==3.1.1" in c["reqs"],
            "pyarrow==26.0.1" in c["reqs"],
            "snakemake==9.27.1" in c["reqs"],
        )
        for c in calls
    }
    # impl-pandas: pandas only; impl-pyarrow: pyarrow only; referee: neither, snakemake
    assert by_pins == {(True, False, False), (False, True, False), (False, False, True)}


def test_no_advisory_data_is_not_a_clean_bill(tmp_path, monkeypatch):
    # every package skipped (what an index without per-version data gives): not audited,
    # although pip-audit itself exits 0 and says no known vulnerabilities
    report = {"dependencies": [{"name": "six", "skip_reason": "Dependency not found on PyPI"}]}
    _fake(tmp_path, f"print(json.dumps({report!r}))\n")
    doc = _run(tmp_path, monkeypatch)
    for env in doc["environments"].values():
        assert env["audited"] is False
        assert env["reason"] == "no advisory data reachable"
        assert "any of 1 pinned package(s)" in env["detail"]
    assert vulns.summary(doc) == "not audited: no advisory data reachable"


def test_failing_pip_audit_is_recorded_and_exits_0(tmp_path, monkeypatch):
    _fake(
        tmp_path,
        "sys.stderr.write('requests.exceptions.ConnectionError: no route\\n')\nsys.exit(1)\n",
    )
    doc = _run(tmp_path, monkeypatch)
    for env in doc["environments"].values():
        assert env == {
            "audited": False,
            "reason": "pip-audit failed (exit 1)",
            "detail": "requests.exceptions.ConnectionError: no route",
        }
    assert vulns.summary(doc) == "not audited: pip-audit failed (exit 1)"


def test_a_hanging_pip_audit_times_out(tmp_path, monkeypatch):
    _fake(tmp_path, "time.sleep(30)\n")
    doc = _run(tmp_path, monkeypatch, "--timeout", "1")
    for env in doc["environments"].values():
        assert env["audited"] is False
        assert env["reason"] == "pip-audit timed out after 1 s"


def test_missing_pip_audit_is_recorded(tmp_path, monkeypatch):
    doc = _run(tmp_path, monkeypatch, "--pip-audit", str(tmp_path / "nowhere" / "pip-audit"))
    for env in doc["environments"].values():
        assert env["audited"] is False
        assert env["reason"] == "pip-audit not found"
        assert vulns.SYNC_HINT in env["detail"]


def _fake_uv(tmp_path: Path, monkeypatch, folder: str) -> Path:
    """A uv that only logs that it ran, and fails, named by UV (as `uv run` sets it);
    in folder "bin" it is also first on PATH."""
    log = tmp_path / "uv-calls"
    (tmp_path / folder).mkdir(exist_ok=True)
    exe = tmp_path / folder / "uv"
    exe.write_text(f'#!/bin/sh\necho "$@" >> {str(log)!r}\nexit 3\n', encoding="utf-8")
    exe.chmod(0o755)
    monkeypatch.setenv("UV", str(exe))
    return log


def test_missing_pip_audit_exports_nothing(tmp_path, monkeypatch):
    uv_log = _fake_uv(tmp_path, monkeypatch, "bin")
    doc = _run(tmp_path, monkeypatch, "--pip-audit", str(tmp_path / "nowhere" / "pip-audit"))
    assert not uv_log.exists()  # no pins exported for a pip-audit that is not there
    assert {e["reason"] for e in doc["environments"].values()} == {"pip-audit not found"}


def test_the_pins_come_from_the_uv_that_runs_the_seat(tmp_path, monkeypatch):
    _fake(tmp_path, f"print(json.dumps({REPORT!r}))\n")
    uv_log = _fake_uv(tmp_path, monkeypatch, "elsewhere")
    doc = _run(tmp_path, monkeypatch)
    assert len(uv_log.read_text().splitlines()) == len(vulns.ENVIRONMENTS)
    for env in doc["environments"].values():  # the fake uv exits 3
        assert env["reason"] == "uv export failed (exit 3)"


def test_disabled_by_config_runs_nothing(tmp_path, monkeypatch):
    log = _fake(tmp_path, f"print(json.dumps({REPORT!r}))\n")
    doc = _run(tmp_path, monkeypatch, "--disabled")
    assert _calls(log) == []
    for env in doc["environments"].values():
        assert env == {"audited": False, "reason": vulns.DISABLED}
    assert vulns.summary(doc) == f"not audited: {vulns.DISABLED}"


def test_the_config_key_is_a_boolean():
    schema = yaml.safe_load(
        (ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8")
    )
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))
    jsonschema.validate({**cfg, "vulnerability_audit": False}, schema)
    try:
        jsonschema.validate({**cfg, "vulnerability_audit": "no"}, schema)
    except jsonschema.ValidationError:
        pass
    else:
        raise AssertionError("a non-boolean vulnerability_audit was accepted")


def test_the_report_line_is_volatile_in_every_file_it_is_in(tmp_path):
    # absent and malformed files give a line, never an exception
    assert vulns.line_of(tmp_path) == (
        f"{contract.VULNS_PREFIX}not audited: no vulnerability audit in this run."
    )
    (tmp_path / "vulnerabilities.json").write_bytes(b"\xff{")
    line = vulns.line_of(tmp_path)
    assert line == f"{contract.VULNS_PREFIX}not audited: vulnerabilities.json is unreadable."
    # compare-annex sets it aside in the certificate, the report and its HTML paragraph
    for rel, text in [
        ("certificate.md", line),
        ("report/report.md", line),
        ("report/report.html", f"<p>{line}</p>"),
    ]:
        assert text.startswith(contract.VOLATILE_LINE_PREFIXES[rel])


def test_the_summary_names_each_environment_and_caps_the_list():
    # worked by hand: 7 advisories, the first 5 named and "2 more"; the other two environments
    adv = [{"package": f"p{i}", "version": "1.0", "id": f"PYSEC-{i}"} for i in range(7)]
    doc = {
        "environments": {
            "impl-pandas": {"audited": False, "reason": "pip-audit timed out after 240 s"},
            "impl-pyarrow": {"audited": True, "packages_audited": 4, "advisories": []},
            "referee": {
                "audited": True,
                "packages_audited": 140,
                "advisories": adv,
                "not_audited": [{"package": "x", "reason": "?"}],
            },
        }
    }
    assert vulns.summary(doc) == (
        "impl-pandas not audited (pip-audit timed out after 240 s); "
        "impl-pyarrow no known advisory in 4 package(s); "
        "referee 7 known advisories (p0 1.0 PYSEC-0, p1 1.0 PYSEC-1, p2 1.0 PYSEC-2, "
        "p3 1.0 PYSEC-3, p4 1.0 PYSEC-4 and 2 more) in 140 package(s), 1 without advisory data"
    )
