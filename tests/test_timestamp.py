"""RFC 3161 time-stamps of the lock and of the seal, against a TSA of the test's own.

The TSA listens on 127.0.0.1 only (tests/tsa_server.py: ``openssl ts -reply`` behind
a small HTTP handler, with a CA and a TSA certificate made here). The demo runs with
it; verify must print both times, which are read back independently with the
OpenSSL command line (``openssl ts -reply -text``, ``openssl ts -verify``). Each
forgery is made with the project's own code where a forger would use it (the
reseal of tests/test_seal.py) and a TSA that stamps whatever it is sent; verify
with ``--tsa-cert`` must fail and name the token.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from audit.seal import contract, ledger
from audit.seal import timestamp as ts
from tests.conftest import ROOT, SNAKEMAKE, annex_head, run_audit, run_dag
from tests.test_seal import _reseal
from tests.tsa_server import TSA, closed_port_url, faketime_lib, make_pki, reply

pytestmark = pytest.mark.slow
DEMO = ["--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}"]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("pki")
    return {"good": make_pki(base / "good", "good"), "other": make_pki(base / "other", "other")}


@pytest.fixture(scope="module")
def tsa(pki):
    with TSA(pki["good"]) as server:
        yield server


def _tsa_config(work: Path, url: str, cert: Path, optional: bool = False) -> list[str]:
    work.mkdir(parents=True, exist_ok=True)
    extra = work / "tsa.yaml"
    extra.write_text(
        f"tsa_url: {url}\ntsa_cert: {cert}\n" + ("tsa_optional: true\n" if optional else ""),
        encoding="utf-8",
    )
    return ["--configfile", str(work / "config" / "config.yaml"), str(extra)]


@pytest.fixture(scope="module")
def stamped(impl_envs, pki, tsa, tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("seat")
    p = run_dag(work, *DEMO, *_tsa_config(work, tsa.url, pki["good"] / "ca.crt"))
    assert p.returncode == 0, p.stderr[-3000:]
    annex = work / "results" / "demo" / "annex"
    return work, annex, annex_head(annex)


def _openssl_time(token: Path) -> datetime:
    """The token's time as the OpenSSL command line reads it (independent of the code)."""
    out = subprocess.run(
        ["openssl", "ts", "-reply", "-in", str(token), "-text"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (line,) = [ln for ln in out.splitlines() if ln.startswith("Time stamp:")]
    text = " ".join(line.split(":", 1)[1].split())
    return datetime.strptime(text, "%b %d %H:%M:%S %Y %Z").replace(tzinfo=UTC)


def _openssl_verifies(token: Path, message: str, ca: Path, tmp: Path) -> bool:
    data = tmp / "message"
    data.write_text(message, encoding="ascii")
    p = subprocess.run(
        ["openssl", "ts", "-verify", "-data", str(data), "-in", str(token), "-CAfile", str(ca)],
        capture_output=True,
        text=True,
        check=False,
    )
    return p.returncode == 0 and "Verification: OK" in p.stdout


def test_the_demo_stamped_verifies_with_both_times(stamped, pki, tmp_path: Path) -> None:
    _work, annex, head = stamped
    ca = pki["good"] / "ca.crt"
    r = run_audit("verify", annex, "--head", head, "--tsa-cert", ca)
    assert r.code == 0, r.stderr
    t1, t2 = _openssl_time(annex / "lock" / "lock.tsr"), _openssl_time(annex / "seal.tsr")
    assert t1 <= t2
    when = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (
        f"time-stamps: method locked no later than {when(t1)}; annex sealed no earlier than"
        f" {when(t1)} (it holds the lock's token) and no later than {when(t2)}"
    ) in r.stdout
    # the lock's token covers the ledger line that closes the lock's events (line 3 of
    # the demo: prereg_locked, then the two bundle tables), the seal's the head
    lines = [json.loads(x) for x in (annex / "ledger.jsonl").read_text().splitlines()]
    assert [e["event"] for e in lines[:4]] == [
        "prereg_locked",
        "bundle_hashed",
        "bundle_hashed",
        "prediction_stamped",
    ]
    assert _openssl_verifies(annex / "lock" / "lock.tsr", lines[2]["hash"], ca, tmp_path)
    assert _openssl_verifies(annex / "seal.tsr", head, ca, tmp_path)
    assert not _openssl_verifies(annex / "seal.tsr", lines[2]["hash"], ca, tmp_path)
    # the token and its record are listed; the seal's token is not (it covers the head)
    manifest = json.loads((annex / "manifest.json").read_text())
    assert {"lock/lock.tsr", "lock/timestamp.json"} <= set(manifest["files"])
    assert "seal.tsr" not in manifest["files"]
    # the certificate and the report say it in one line
    line = (
        f"Time-stamps: method locked no later than {when(t1)} (RFC 3161 token lock/lock.tsr"
        f" from {json.loads((annex / 'lock/timestamp.json').read_text())['tsa_url']}, over"
        " ledger line 3); the annex head is stamped after the seal (seal.tsr); verify"
        " --tsa-cert checks both."
    )
    for rel in ("certificate.md", "report/report.md"):
        assert line in (annex / rel).read_text().splitlines(), rel
    # another TSA's certificates are not the ones that signed
    r = run_audit("verify", annex, "--head", head, "--tsa-cert", pki["other"] / "ca.crt")
    assert r.code == 1 and "lock.tsr: its signature does not chain" in r.stderr, r.stderr


def test_no_contestant_control_or_null_job_started_before_the_stamp(stamped) -> None:
    """In the run itself, every recompute, control and null job started after the
    lock's stamp finished (Snakemake's own log of the run)."""
    work, _, _ = stamped
    log = min((work / ".snakemake" / "log").glob("*.snakemake.log")).read_text()
    finished = log.index("(Rule: timestamp_lock)")
    started = 0
    for rule in ("recompute", "controls_predict_perturb", "controls_recompute", "null_draws"):
        starts = [
            m.start() for m in re.finditer(rf"^(?:local)?rule {rule}:", log, flags=re.MULTILINE)
        ]
        assert all(s > finished for s in starts), rule
        started += len(starts)
    assert started >= 5  # four recompute runs and the predictions, at least


def test_the_plan_holds_the_stamp_before_a_contestant(stamped, pki, tsa) -> None:
    work, _, _ = stamped
    p = subprocess.run(
        [
            SNAKEMAKE,
            "--snakefile",
            str(ROOT / "Snakefile"),
            "--directory",
            str(work),
            "-n",
            "--forceall",
            "--cores",
            "1",
            *DEMO,
            *_tsa_config(work, tsa.url, pki["good"] / "ca.crt"),
            "--",
            "results/demo/recompute/pandas/run1/cells.csv",
            "results/demo/controls/swap_m1_m2/prediction.csv",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    jobs = re.findall(r"^(?:local)?rule (\w+):", p.stdout, flags=re.MULTILINE)
    assert "timestamp_lock" in jobs and "recompute" in jobs and "controls_predict_perturb" in jobs


# --- forgeries ------------------------------------------------------------------------


def _copy(stamped, tmp_path: Path) -> Path:
    dst = tmp_path / "annex"
    shutil.copytree(stamped[1], dst)
    return dst


def _token(pki: Path, message: str, clock: str | None = None) -> bytes:
    """What a TSA gives anyone who asks: a token over ``message`` (the request made with
    the OpenSSL command line)."""
    from rfc3161_client import HashAlgorithm, TimestampRequestBuilder

    query = (
        TimestampRequestBuilder()
        .data(message.encode("ascii"))
        .hash_algorithm(HashAlgorithm.SHA256)
        .build()
        .as_bytes()
    )
    return reply(pki, query, clock)


def _restamp_seal(annex: Path, pki: Path) -> None:
    """The forger's reseal changed the head; a TSA stamps the new one for anyone."""
    (annex / "seal.tsr").write_bytes(_token(pki, annex_head(annex)))


def _fails_naming(annex: Path, ca: Path, name: str, words: str, head: str | None = None) -> None:
    args = ["verify", annex, "--tsa-cert", ca, *(["--head", head] if head else [])]
    r = run_audit(*args)
    assert r.code == 1, (r.code, r.stderr)
    assert any(name in ln and words in ln for ln in r.stderr.splitlines()), r.stderr


def test_a_token_for_another_hash_fails(stamped, pki, tmp_path: Path) -> None:
    annex = _copy(stamped, tmp_path)
    (annex / "lock/lock.tsr").write_bytes(_token(pki["good"], "e" * 64))
    _reseal(annex)
    _restamp_seal(annex, pki["good"])
    _fails_naming(annex, pki["good"] / "ca.crt", "lock.tsr", "a token for another hash")
    # and against the head the seat published, the reseal shows too
    _fails_naming(annex, pki["good"] / "ca.crt", "ledger.jsonl", "anchored head", stamped[2])


def test_a_token_signed_by_another_tsa_key_fails(stamped, pki, tmp_path: Path) -> None:
    annex = _copy(stamped, tmp_path)
    message = json.loads((annex / "lock/timestamp.json").read_text())["message"]
    (annex / "lock/lock.tsr").write_bytes(_token(pki["other"], message))
    _reseal(annex)
    _restamp_seal(annex, pki["good"])
    _fails_naming(annex, pki["good"] / "ca.crt", "lock.tsr", "does not chain")
    # the seal's token alone replaced by the other TSA's, no reseal needed (unlisted)
    annex2 = _copy(stamped, tmp_path / "two")
    (annex2 / "seal.tsr").write_bytes(_token(pki["other"], stamped[2]))
    _fails_naming(annex2, pki["good"] / "ca.crt", "seal.tsr", "does not chain", stamped[2])


def test_the_locks_token_moved_to_an_amended_prereg_fails(stamped, pki, tmp_path: Path) -> None:
    """The forger amends the locked prereg after seeing the results, rewrites every hash
    and ledger line that names it, and keeps the lock's token: its imprint is the old
    lock line's hash."""
    import blake3

    annex = _copy(stamped, tmp_path)
    prereg = annex / "lock/prereg.yaml"
    prereg.write_bytes(prereg.read_bytes() + b"# amended after the results were seen\n")
    new = blake3.blake3(prereg.read_bytes()).hexdigest()
    lock = json.loads((annex / "lock/lock.json").read_text())
    lock["prereg"]["blake3"] = new
    (annex / "lock/lock.json").write_text(json.dumps(lock, indent=2))
    manifest = json.loads((annex / "manifest.json").read_text())
    manifest["prereg"]["blake3"] = new
    (annex / "manifest.json").write_text(json.dumps(manifest, indent=2))
    lines = [json.loads(x) for x in (annex / "ledger.jsonl").read_text().splitlines()]
    (locked,) = [e for e in lines if e["event"] == "prereg_locked"]
    locked["blake3"] = new
    lines[-1]["prereg_blake3"] = new
    rechained = ledger.chain(
        lines[locked["seq"] - 1 :],
        lines[locked["seq"] - 2]["hash"] if locked["seq"] > 1 else ledger.GENESIS,
        locked["seq"],
    )
    lines = lines[: locked["seq"] - 1] + rechained
    (annex / "ledger.jsonl").write_text(ledger.text(lines))
    record = json.loads((annex / "lock/timestamp.json").read_text())
    record["message"] = lines[2]["hash"]  # the record follows the forged chain
    (annex / "lock/timestamp.json").write_text(json.dumps(record, indent=2))
    _reseal(annex)
    _reseal(annex)  # again: the statement signed over the certificate's new anchor line
    _restamp_seal(annex, pki["good"])
    r = run_audit("verify", annex, "--tsa-cert", pki["good"] / "ca.crt")
    assert r.code == 1
    problems = [ln for ln in r.stderr.splitlines() if ln.startswith("FAILED")]
    assert len(problems) == 1 and "lock.tsr: its imprint is not SHA-256 of" in problems[0], r.stderr


@pytest.mark.skipif(
    faketime_lib() is None, reason="libfaketime is not installed (.ci/run installs it)"
)
def test_a_seal_token_older_than_the_lock_token_fails(stamped, pki, tmp_path: Path) -> None:
    """A TSA whose clock is a day behind stamps the true head: its imprint and signature
    hold, its time is before the lock's; no reseal is needed (seal.tsr is unlisted)."""
    annex = _copy(stamped, tmp_path)
    (annex / "seal.tsr").write_bytes(_token(pki["good"], stamped[2], clock="-1d"))
    assert _openssl_time(annex / "seal.tsr") < _openssl_time(annex / "lock/lock.tsr")
    _fails_naming(annex, pki["good"] / "ca.crt", "seal.tsr", "older than the lock's", stamped[2])


def test_a_token_edited_and_the_annex_resealed_fails(stamped, pki, tmp_path: Path) -> None:
    annex = _copy(stamped, tmp_path)
    token = bytearray((annex / "lock/lock.tsr").read_bytes())
    token[len(token) // 2] ^= 0x01
    (annex / "lock/lock.tsr").write_bytes(bytes(token))
    _reseal(annex)
    _restamp_seal(annex, pki["good"])
    _fails_naming(annex, pki["good"] / "ca.crt", "lock.tsr", "")
    _fails_naming(annex, pki["good"] / "ca.crt", "ledger.jsonl", "anchored head", stamped[2])


def test_the_seal_token_deleted_or_over_another_hash_fails(stamped, pki, tmp_path: Path) -> None:
    annex = _copy(stamped, tmp_path)
    (annex / "seal.tsr").unlink()
    _fails_naming(annex, pki["good"] / "ca.crt", "seal.tsr", "missing", stamped[2])
    pre_seal = [json.loads(x) for x in (annex / "ledger.jsonl").read_text().splitlines()][-2]
    (annex / "seal.tsr").write_bytes(_token(pki["good"], pre_seal["hash"]))
    _fails_naming(annex, pki["good"] / "ca.crt", "seal.tsr", "another hash", stamped[2])


def test_publish_and_fetch_carry_the_stamps(stamped, pki, tmp_path: Path) -> None:
    _, annex, head = stamped
    out = tmp_path / "a.tar"
    assert run_audit("publish", annex, "--out", out).code == 0
    r = run_audit(
        "fetch-annex",
        out,
        "--head",
        head,
        "--out",
        tmp_path / "f",
        "--tsa-cert",
        pki["good"] / "ca.crt",
    )
    assert r.code == 0, r.stderr
    assert (tmp_path / "f/annex/seal.tsr").read_bytes() == (annex / "seal.tsr").read_bytes()
    r = run_audit(
        "fetch-annex",
        out,
        "--head",
        head,
        "--out",
        tmp_path / "g",
        "--tsa-cert",
        pki["other"] / "ca.crt",
    )
    assert r.code == 2 and "annex_not_verified" in r.stderr and "does not chain" in r.stderr
    assert not (tmp_path / "g").exists()


# --- a TSA that is down or answers badly ------------------------------------------------


def _refused_before_any_job(work: Path, p: subprocess.CompletedProcess, words: str) -> None:
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert p.returncode == 2, p.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith("error[tsa_unavailable]: "), p.stderr
    assert words in lines[0], lines[0]
    assert not (work / "results" / "demo").exists()


def test_a_tsa_that_is_down_stops_the_run_before_the_lock(pki, tmp_path: Path) -> None:
    work = tmp_path / "down"
    p = run_dag(work, *DEMO, *_tsa_config(work, closed_port_url(), pki["good"] / "ca.crt"))
    _refused_before_any_job(work, p, "no answer")


def test_a_tsa_that_answers_badly_stops_the_run(pki, tmp_path: Path) -> None:
    with TSA(pki["good"], "garbage") as bad:
        work = tmp_path / "garbage"
        p = run_dag(work, *DEMO, *_tsa_config(work, bad.url, pki["good"] / "ca.crt"))
    _refused_before_any_job(work, p, "not an RFC 3161 time-stamp reply")
    with TSA(pki["other"]) as other:  # a TSA signing under a CA the seat does not trust
        work = tmp_path / "other"
        p = run_dag(work, *DEMO, *_tsa_config(work, other.url, pki["good"] / "ca.crt"))
    _refused_before_any_job(work, p, "does not chain")


def test_a_tsa_down_when_the_stamp_is_due_writes_nothing_but_the_lock(
    impl_envs, pki, tmp_path: Path
) -> None:
    """The TSA answered while the workflow was read, and is down when the lock's stamp
    is due: the job refuses, and nothing under results/demo/ but the lock's own files."""
    work = tmp_path / "late"
    with TSA(pki["good"]) as server:
        config = _tsa_config(work, server.url, pki["good"] / "ca.crt")
        p = run_dag(work, *DEMO, *config, "--", "results/demo/lock/lock.json")
        assert p.returncode == 0, p.stderr[-2000:]
        url = server.url
    p = run_dag(work, *DEMO, *_tsa_config(work, url, pki["good"] / "ca.crt"))
    assert p.returncode == 2  # the probe, as the workflow is read, finds it down
    # skip the probe by going straight to the job: it refuses in the same words
    p = run_audit(
        "timestamp-lock",
        "--events",
        work / "results/demo/events/lock.json",
        "--out",
        work / "results/demo/lock/timestamp.json",
        "--token",
        work / "results/demo/lock/lock.tsr",
        "--url",
        url,
        "--cert",
        pki["good"] / "ca.crt",
    )
    assert p.code == 2 and p.stderr.startswith("error[tsa_unavailable]: "), p.stderr
    left = sorted(
        q.relative_to(work / "results/demo").as_posix()
        for q in (work / "results/demo").rglob("*")
        if q.is_file()
    )
    assert left == [
        "events/lock.json",
        "lock/files.json",
        "lock/lock.json",
        "lock/prereg.yaml",
        "logs/lock.log",
    ], left


def test_an_optional_stamp_the_tsa_refuses_is_said_and_the_run_completes(
    impl_envs, pki, tmp_path: Path
) -> None:
    work = tmp_path / "optional"
    config = _tsa_config(work, closed_port_url(), pki["good"] / "ca.crt", optional=True)
    p = run_dag(work, *DEMO, *config)
    assert p.returncode == 0, p.stderr[-3000:]
    annex = work / "results" / "demo" / "annex"
    assert "the lock is NOT time-stamped" in p.stdout + p.stderr
    record = json.loads((annex / "lock/timestamp.json").read_text())
    assert record["stamped"] is False and "no answer" in record["reason"]
    assert not (annex / "lock/lock.tsr").exists() and not (annex / "seal.tsr").exists()
    cert = (annex / "certificate.md").read_text().splitlines()
    (line,) = [ln for ln in cert if ln.startswith(contract.TSA_PREFIX)]
    assert line.startswith("Time-stamps: not stamped: the time-stamping authority ")
    assert line.endswith("so the order of lock and results rests on the seat's own clock.")
    head = annex_head(annex)
    r = run_audit("verify", annex, "--head", head)
    assert r.code == 0 and "the lock was not stamped" in r.stdout, r.stdout + r.stderr
    r = run_audit("verify", annex, "--head", head, "--tsa-cert", pki["good"] / "ca.crt")
    assert r.code == 1 and "not stamped" in r.stderr, r.stderr


def test_the_line_without_a_tsa_says_whose_clock(tmp_path: Path) -> None:
    assert ts.line_of(tmp_path) == (
        "Time-stamps: not stamped: no time-stamping authority was configured, so the order"
        " of lock and results rests on the seat's own clock."
    )


def test_compare_annex_sets_a_seats_stamps_aside(stamped, tmp_path: Path) -> None:
    """A seat with a TSA and one without agree on everything else: the tokens, the record
    and the certificate's and report's time-stamp line are the seat's own."""
    _, annex, _ = stamped
    other = _copy(stamped, tmp_path)
    manifest = json.loads((other / "manifest.json").read_text())
    for rel in ("lock/lock.tsr", "lock/timestamp.json", "seal.tsr"):
        (other / rel).unlink()
        manifest["files"].pop(rel, None)
    (other / "manifest.json").write_text(json.dumps(manifest, indent=2))
    for rel in ("certificate.md", "report/report.md", "report/report.html"):
        text = (other / rel).read_text().splitlines()
        text = [
            ts.line_of(tmp_path / "none") if ln.startswith(contract.TSA_PREFIX) else ln
            for ln in text
        ]
        (other / rel).write_text("\n".join(text) + "\n")
    r = run_audit("compare-annex", annex, other)
    assert r.code == 0, r.stdout + r.stderr
    assert "verdict: every non-volatile file identical" in r.stdout
    assert "volatile (not counted): seal.tsr (differs)" in r.stdout
    # a time-stamp line that is not the one the annex's own record gives still counts
    cert = (other / "certificate.md").read_text()
    no_tsa = ts.line_of(tmp_path / "none")
    (other / "certificate.md").write_text(cert.replace(no_tsa, no_tsa + " All cells hold."))
    r = run_audit("compare-annex", annex, other)
    assert r.code == 1 and "DIFFERENT: certificate.md" in r.stdout, r.stdout
    (other / "certificate.md").write_text(cert)
    # a content file that differs still counts
    (other / "census.txt").write_text("edited\n")
    assert run_audit("compare-annex", annex, other).code == 1


def test_a_tsa_failing_when_the_stamp_is_due_ends_the_run_on_its_line(
    impl_envs, pki, tmp_path: Path
) -> None:
    """The TSA answers the check made while the workflow is read, then answers garbage when
    the lock's stamp is due: the run ends with the job's one line, exit 2 (Snakemake's exit
    1 before), and nothing under results/demo/ but the lock's own files and the logs."""
    work = tmp_path / "once"
    with TSA(pki["good"], mode="once") as server:
        p = run_dag(work, *DEMO, *_tsa_config(work, server.url, pki["good"] / "ca.crt"))
        assert server.requests == 2  # the check, then the stamp
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error[tsa_unavailable]: {server.url}: a bad answer: "), last
    res = work / "results" / "demo"
    assert not (res / "lock" / "timestamp.json").exists()
    assert not (res / "lock" / "lock.tsr").exists()
    computed = [q for q in ("recompute", "census.csv", "annex") if (res / q).exists()]
    assert computed == [], computed


def test_the_refused_stamp_is_read_from_this_runs_logs_only(tmp_path: Path) -> None:
    """The seal's log as much as the lock's stamp: the refusal line of a log written since
    the run began; a log an earlier run left (older than the start) is not this run's."""
    import os

    lock_log, seal_log = tmp_path / "timestamp_lock.log", tmp_path / "annex.log"
    lock_log.write_text("lock time-stamped at ...\n")
    line = "error[tsa_unavailable]: http://127.0.0.1:9/tsa: no answer (refused)"
    seal_log.write_text(f"sealing\n{line}\n")
    logs = [str(lock_log), str(seal_log)]
    began = seal_log.stat().st_mtime - 1
    assert ts.refused_stamp(logs, began) == line
    os.utime(seal_log, (began - 10, began - 10))  # left by an earlier run
    assert ts.refused_stamp(logs, began) is None


@pytest.mark.realbundle
def test_a_trials_arm_is_stamped_and_verifies_with_the_tsa(impl_envs, pki, tsa, tmp_path: Path):
    """A trials arm (the SkillsBench registry) run with a TSA: the lock and the seal are
    stamped, and verify --tsa-cert checks both tokens (docs/seal.md, Time-stamps; the
    stamp is the same rule for both kinds)."""
    bundle = (ROOT / ".." / "shared" / "bundles" / "skillsbench-registry").resolve()
    if not bundle.is_dir():
        pytest.skip("the SkillsBench registry bundle is not here")
    work = tmp_path / "trials"
    work.mkdir()
    (work / "tsa.yaml").write_text(
        f"tsa_url: {tsa.url}\ntsa_cert: {pki['good'] / 'ca.crt'}\n", encoding="utf-8"
    )
    arm = "skillsbench-registry"
    p = run_dag(
        work,
        "--configfile",
        str(ROOT / "config" / f"{arm}.yaml"),
        str(work / "tsa.yaml"),
        "--config",
        f"prereg={ROOT / 'prereg' / f'{arm}.yaml'}",
        f"bundle={bundle}",
    )
    assert p.returncode == 0, p.stderr[-3000:]
    annex = work / "results" / arm / "annex"
    record = json.loads((annex / "lock" / "timestamp.json").read_text())
    assert record["stamped"] is True
    assert (annex / "lock" / "lock.tsr").is_file() and (annex / "seal.tsr").is_file()
    r = run_audit(
        "verify", annex, "--head", annex_head(annex), "--tsa-cert", pki["good"] / "ca.crt"
    )
    assert r.code == 0, r.stdout + r.stderr
