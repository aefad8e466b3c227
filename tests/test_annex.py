"""The annex: a first seat seals it, a second seat verifies it, reruns, and compares."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CHROMIUM_FLAGS, ROOT, run_audit, run_dag

CHROMIUM = shutil.which("chromium")


def _seat(work: Path, *config: str) -> subprocess.CompletedProcess:
    return run_dag(work, "--config", *config)


@pytest.fixture(scope="module")
def seats(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """First seat, then a second seat rerunning from the first seat's annex."""
    first = tmp_path_factory.mktemp("seat1")
    p = _seat(first, f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert p.returncode == 0, p.stderr[-3000:]
    annex = first / "results" / "demo" / "annex"
    last = [ln for ln in p.stdout.splitlines() if ln.strip()][-1]  # the run prints the head last
    assert last.startswith("Annex head"), last
    head = last.split("`")[1]
    second = tmp_path_factory.mktemp("seat2")
    q = _seat(second, "seat=second", f"annex={annex}", f"head={head}")
    assert q.returncode == 0, q.stderr[-3000:]
    return annex, second / "results" / "demo" / "annex", head


@pytest.mark.slow
def test_second_seat_reproduces_every_non_volatile_file(seats) -> None:
    a, b, _ = seats
    res = run_audit("compare-annex", a, b)
    assert res.code == 0, res.stdout
    assert "verdict: every non-volatile file identical" in res.stdout
    assert "DIFFERENT" not in res.stdout and "ONLY IN" not in res.stdout
    # the volatile files are listed apart, never counted as agreement
    for name in ("ledger.jsonl", "run.json", "README.md"):
        assert f"volatile (not counted): {name}" in res.stdout


@pytest.mark.slow
def test_the_vulnerability_audit_is_in_the_annex_and_set_aside(seats, tmp_path) -> None:
    a, _, _ = seats
    # the tests' runs disable it (tests/conftest.py run_dag): recorded, not skipped
    doc = json.loads((a / "vulnerabilities.json").read_text())
    assert {e["reason"] for e in doc["environments"].values()} == {
        "disabled by config (vulnerability_audit: false)"
    }
    prefix = "Vulnerability audit (volatile: it depends on the day; reproducible is not safe): "
    line = f"{prefix}not audited: disabled by config (vulnerability_audit: false)."
    for rel in ("certificate.md", "report/report.md"):
        assert line in (a / rel).read_text().splitlines(), rel
    assert f"<p>{line}</p>" in (a / "report" / "report.html").read_text().splitlines()
    # no time-stamping authority configured: said in one line, never silently
    clock = (
        "Time-stamps: not stamped: no time-stamping authority was configured, so the order"
        " of lock and results rests on the seat's own clock."
    )
    for rel in ("certificate.md", "report/report.md"):
        assert clock in (a / rel).read_text().splitlines(), rel
    assert f"<p>{clock}</p>" in (a / "report" / "report.html").read_text().splitlines()
    # another day's findings change only those lines and that file: still identical
    other = tmp_path / "other"
    shutil.copytree(a, other)
    found = f"{prefix}referee 1 known advisory (urllib3 2.8.0 GHSA-x) in 140 package(s)."
    for rel, old, new in [
        ("certificate.md", line, found),
        ("report/report.md", line, found),
        ("report/report.html", f"<p>{line}</p>", f"<p>{found}</p>"),
    ]:
        text = (other / rel).read_text()
        assert old in text, rel
        (other / rel).write_text(text.replace(old, new))
    # the line is set aside only as the line that seat's own vulnerabilities.json gives
    # (audit/seal/volatile.py): that file, as the audit writes it, for that finding
    advisory = {"package": "urllib3", "version": "2.8.0", "id": "GHSA-x"}
    entry = {"audited": True, "packages_audited": 140, "not_audited": []}
    doc["environments"] = {
        "referee": {**entry, "advisories": [{**advisory, "aliases": [], "fix_versions": []}]}
    }
    (other / "vulnerabilities.json").write_text(json.dumps(doc))
    res = run_audit("compare-annex", a, other)
    assert res.code == 0, res.stdout
    assert "DIFFERENT" not in res.stdout
    assert "volatile (not counted): vulnerabilities.json (differs)" in res.stdout
    # any other line of the certificate still counts
    cert = other / "certificate.md"
    cert.write_text(cert.read_text().replace(found, found + "\nextra"))
    res = run_audit("compare-annex", a, other)
    assert res.code == 1 and "DIFFERENT: certificate.md" in res.stdout, res.stdout


@pytest.mark.slow
def test_both_annexes_verify_against_their_heads(seats) -> None:
    a, b, head = seats
    assert f"`{head}`" in (a / "README.md").read_text()
    seal_line = json.loads((a / "ledger.jsonl").read_text().splitlines()[-1])
    assert seal_line["hash"] == head and seal_line["event"] == "annex_sealed"
    assert f"`{seal_line['prev']}`" in (a / "certificate.md").read_text()  # the pre-seal head
    res = run_audit("verify", a, "--head", head)
    assert res.code == 0, res.stderr
    assert "against the head you hold" in res.stdout
    own = json.loads((b / "ledger.jsonl").read_text().splitlines()[-1])["hash"]
    assert run_audit("verify", b, "--head", own).code == 0
    assert run_audit("verify", b, "--head", head).code == 1  # another seat's head


def _copy(seats, tmp_path: Path) -> tuple[Path, str]:
    a, _, head = seats
    dst = tmp_path / "annex"
    shutil.copytree(a, dst)
    return dst, head


def _flip_byte(path: Path, at: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2 if at is None else at] ^= 0x01
    path.write_bytes(bytes(data))


TAMPER_FILES = [
    "recompute/pandas/run1/cells.csv",
    "census_cells.csv",
    "certificate.md",
    "manifest.json",
    "report/census_map.svg",
    "controls/flip_m2_beta/prediction.csv",
    "lock/prereg.yaml",
    "ledger.jsonl",
]


@pytest.mark.slow
@pytest.mark.parametrize("rel", TAMPER_FILES)
def test_one_changed_byte_fails_verification_naming_the_file(seats, tmp_path, rel) -> None:
    annex, head = _copy(seats, tmp_path)
    # the manifest's first byte, its opening brace, so that it is malformed (its middle
    # byte may land in a path or a digest, which fails the check as any other file)
    _flip_byte(annex / rel, 0 if rel == "manifest.json" else None)
    res = run_audit("verify", annex, "--head", head)
    # a malformed manifest is refused as such (2); any other change fails the check (1)
    assert res.code == (2 if rel == "manifest.json" else 1), res.stdout + res.stderr
    named = rel if rel != "ledger.jsonl" else "ledger.jsonl:"
    assert named in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def _ledger_lines(annex: Path) -> list[str]:
    return (annex / "ledger.jsonl").read_text().splitlines(keepends=True)


@pytest.mark.slow
def test_a_deleted_ledger_line_is_named(seats, tmp_path) -> None:
    annex, head = _copy(seats, tmp_path)
    lines = _ledger_lines(annex)
    del lines[3]
    (annex / "ledger.jsonl").write_text("".join(lines))
    res = run_audit("verify", annex, "--head", head)
    assert res.code == 1 and "ledger.jsonl:4: seq is 5, expected 4" in res.stderr


@pytest.mark.slow
def test_two_swapped_ledger_lines_are_named(seats, tmp_path) -> None:
    annex, head = _copy(seats, tmp_path)
    lines = _ledger_lines(annex)
    lines[4], lines[5] = lines[5], lines[4]
    (annex / "ledger.jsonl").write_text("".join(lines))
    res = run_audit("verify", annex, "--head", head)
    assert res.code == 1 and "ledger.jsonl:5: prev does not match" in res.stderr


@pytest.mark.slow
def test_a_cut_tail_fails_against_the_anchored_head(seats, tmp_path) -> None:
    annex, head = _copy(seats, tmp_path)
    lines = _ledger_lines(annex)
    (annex / "ledger.jsonl").write_text("".join(lines[:-3]))
    res = run_audit("verify", annex, "--head", head)
    assert res.code == 1
    assert "must end with its one annex_sealed line" in res.stderr
    assert f"the anchored head is {head}" in res.stderr


@pytest.mark.slow
def test_an_added_and_a_missing_file_are_named(seats, tmp_path) -> None:
    annex, head = _copy(seats, tmp_path)
    (annex / "extra.csv").write_text("x\n")
    (annex / "controls.md").unlink()
    res = run_audit("verify", annex, "--head", head)
    assert res.code == 1
    assert "extra.csv: added (not in the manifest)" in res.stderr
    assert "controls.md: missing (listed in the manifest)" in res.stderr


def test_verify_of_no_annex_is_unusable_input(tmp_path: Path) -> None:
    res = run_audit("verify", tmp_path / "nope")
    assert res.code == 2
    assert (
        res.stderr.strip()
        == f"error[missing_file]: {tmp_path / 'nope'}: annex folder does not exist"
    )


def _hashes(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (none when it is absent) and its sha256."""
    import hashlib

    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow
def test_second_seat_refuses_a_bundle_with_other_content(seats, tmp_path, demo_bundle) -> None:
    """The first seat's lock records the leaderboard's content digest; a second seat's
    bundle with other scores is refused as the workflow is read, by the lock's own
    comparison and line (bundle_changed, both digests), exit 2, nothing under results/
    and the first seat's annex byte for byte as it was. Before issue 27 only the lock
    job refused it: Snakemake's exit 1, and results/demo/logs/lock.log left behind."""
    import polars as pl

    from audit.bundles.digest import table_digest
    from audit.seal.lock_record import read_lock

    annex, _, _ = seats
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    lb.with_columns(pl.col("alpha_score") + 0.1).write_parquet(bundle / "leaderboard.parquet")
    head = seats[2]
    # the two digests the line must name: the first seat's record, and the digest the
    # lock computes of the changed file (the lock's own function)
    was = read_lock(annex / "lock" / "lock.json").bundle["leaderboard"].content_digest
    now = table_digest(str(bundle / "leaderboard.parquet"))["content_digest"]
    assert was != now
    work = tmp_path / "seat"
    before = _hashes(work / "results"), _hashes(annex)
    p = _seat(work, "seat=second", f"annex={annex}", f"head={head}", f"bundle={bundle}")
    assert p.returncode == 2, p.stderr[-3000:]
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("error[")]
    assert lines == [
        f"error[bundle_changed]: {bundle / 'leaderboard.parquet'}: content digest is {now}"
        f" but {annex}/lock/lock.json locked {was}"
    ], p.stderr[-3000:]
    assert (_hashes(work / "results"), _hashes(annex)) == before
    assert not (work / "results").exists()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_report_renders_in_headless_chromium(seats, tmp_path) -> None:
    annex, _, _ = seats
    page = (annex / "report" / "report.html").as_uri()
    flags = [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(
        [CHROMIUM, *flags, "--dump-dom", page],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    for ident in ("census-table", "census-map", "column-table", "null-histograms", "controls-plot"):
        assert f'id="{ident}"' in html, ident
    assert html.count("<svg") >= 3 and "reproduced" in html
    shot = ROOT / "results" / "screenshots" / "report.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    png = subprocess.run(
        [CHROMIUM, *flags, "--window-size=1400,2400", f"--screenshot={shot}", page],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.returncode == 0 and shot.stat().st_size > 20_000
    assert json.loads((annex / "census.json").read_text())["cells"] == 56


@pytest.mark.slow
def test_a_second_seat_without_a_head_stops_before_anything(seats, tmp_path) -> None:
    annex, _, _ = seats
    work = tmp_path / "seat"
    p = _seat(work, "seat=second", f"annex={annex}")
    assert p.returncode == 2, p.stderr[-2000:]
    assert "error[bad_config]" in p.stderr and "head" in p.stderr
    assert not (work / "results").exists()


@pytest.mark.slow
def test_a_second_seat_refuses_a_tampered_annex_before_anything(seats, tmp_path) -> None:
    annex, head = _copy(seats, tmp_path)
    text = (annex / "census.txt").read_text()
    (annex / "census.txt").write_text(text.replace("23 reproduced", "28 reproduced"))
    work = tmp_path / "seat"
    p = _seat(work, "seat=second", f"annex={annex}", f"head={head}")
    assert p.returncode == 2, p.stderr[-2000:]
    line = next(ln for ln in p.stderr.splitlines() if ln.startswith("error["))
    assert line.startswith(f"error[annex_not_verified]: {annex}:") and "census.txt" in line
    assert not (work / "results").exists()


@pytest.mark.slow
def test_a_bundle_from_another_parquet_writer_compares_identical(
    seats, tmp_path, demo_bundle
) -> None:
    """Same content, other bytes (pyarrow, DataPage v2, no dictionary): every content file
    is identical; lock/files.json, which holds the bytes' digests, is volatile."""
    annex, _, head = seats
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    script = (
        "import sys, pyarrow.parquet as pq\n"
        "for name in ('leaderboard.parquet', 'instances.parquet'):\n"
        "    t = pq.read_table(f'{sys.argv[1]}/{name}')\n"
        "    pq.write_table(t, f'{sys.argv[2]}/{name}', data_page_version='2.0',\n"
        "                   use_dictionary=False, compression='gzip')\n"
    )
    from tests.conftest import impl_python

    w = subprocess.run(
        [str(impl_python("pyarrow")), "-c", script, str(demo_bundle), str(bundle)],
        check=False, capture_output=True, text=True,
    )  # fmt: skip
    assert w.returncode == 0, w.stderr
    assert (bundle / "instances.parquet").read_bytes() != (
        demo_bundle / "instances.parquet"
    ).read_bytes()
    work = tmp_path / "seat"
    p = _seat(work, "seat=second", f"annex={annex}", f"head={head}", f"bundle={bundle}")
    assert p.returncode == 0, p.stderr[-3000:]
    res = run_audit("compare-annex", annex, work / "results" / "demo" / "annex")
    assert res.code == 0, res.stdout
    assert "volatile (not counted): lock/files.json (differs)" in res.stdout
    assert "certificate.md" not in " ".join(
        ln for ln in res.stdout.splitlines() if ln.startswith("DIFFERENT")
    )
