"""A forger holds a sealed demo annex and the project's own code; the head still holds.

For every file of a freshly sealed annex in turn: edit one byte, delete it, and
edit each ledger line; then reseal everything after the edit with the project's
own functions (rebuild the manifest, re-sign with a key of the forger's own,
recompute every ledger line after the edit, rewrite the README for the new
head). `verify --head <the head the run printed>` must fail every time, and say
which file. Without the reseal, the failure must name the edited file itself.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.errors import AuditError
from audit.seal import annex as seal_annex
from audit.seal import attest, contract, ledger
from tests.conftest import ROOT, run_audit, run_dag

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sealed(impl_envs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    work = tmp_path_factory.mktemp("seat")
    p = run_dag(work, "--config", f"prereg={ROOT / 'prereg' / 'demo.yaml'}")
    assert p.returncode == 0, p.stderr[-3000:]
    annex = work / "results" / "demo" / "annex"
    last = [ln for ln in p.stdout.splitlines() if ln.strip()][-1]
    head = last.split("`")[1]
    assert run_audit("verify", annex, "--head", head).code == 0
    return annex, head


def _files(annex: Path) -> list[str]:
    """The annex's files (not Snakemake's empty marker of a directory output)."""
    return sorted(
        p.relative_to(annex).as_posix()
        for p in annex.rglob("*")
        if p.is_file() and p.name != ".snakemake_timestamp"
    )


def _flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    i = len(data) // 2
    data[i] = data[i] ^ 0x01 if data[i] not in (0x0A, 0x0B) else 0x41
    path.write_bytes(bytes(data))


def _reseal(
    annex: Path,
    from_line: int | None = None,
    verdict: tuple[str, dict[str, list[str]]] | None = None,
    keyid: str | None = None,
) -> dict:
    """Everything a forger can recompute: manifest, signature, ledger lines, README.
    The statement signs ``verdict`` (result, tests), by default the one the annex's own
    files give; the forger's key claims ``keyid`` when given. Returns the forger's public
    key document."""
    signer = attest.CryptoSigner.generate_ed25519(keyid=keyid)
    keydoc = attest.public_key_doc(signer)
    (annex / contract.PUBLIC_KEY).write_text(json.dumps(keydoc), encoding="utf-8")
    listed = [
        rel
        for rel in _files(annex)
        if rel not in (*contract.UNLISTED, *contract.OPTIONAL_UNLISTED, contract.ENVELOPE)
    ]
    files = {rel: attest.digests(annex / rel) for rel in listed}
    prereg_digest = files.get("lock/prereg.yaml", {"sha256": "0" * 64, "blake3": "0" * 64})
    if verdict is None:
        try:
            verdict = seal_annex.tests_of(annex)
        except AuditError:  # an edited summary file: sign anything, verify refuses it
            verdict = ("PASSED", {"passed": [], "warned": [], "failed": []})
    result, tests = verdict
    stmt = attest.statement(files, prereg_digest, result, tests)
    (annex / contract.ENVELOPE).write_text(json.dumps(attest.sign(stmt, signer)), encoding="utf-8")
    files[contract.ENVELOPE] = attest.digests(annex / contract.ENVELOPE)
    manifest = json.loads((annex / contract.MANIFEST).read_text(encoding="utf-8"))
    manifest["files"] = files
    (annex / contract.MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    lines = [json.loads(x) for x in (annex / contract.LEDGER).read_text().splitlines()]
    lines[-1]["blake3"] = attest.digests(annex / contract.MANIFEST)["blake3"]
    lines[-1]["files"] = len(files)
    start = (from_line or len(lines)) - 1
    prev = lines[start - 1]["hash"] if start > 0 else ledger.GENESIS
    rechained = ledger.chain(lines[start:], prev, start + 1)
    lines = lines[:start] + rechained
    (annex / contract.LEDGER).write_text(ledger.text(lines), encoding="utf-8")
    cert = annex / "certificate.md"
    if cert.is_file():  # keep the anchor consistent with the forged chain
        text = cert.read_text(encoding="utf-8").splitlines()
        text = [
            f"{contract.ANCHOR_PREFIX}`{lines[-2]['hash']}`"
            if t.startswith(contract.ANCHOR_PREFIX)
            else t
            for t in text
        ]
        cert.write_text("\n".join(text) + "\n", encoding="utf-8")
        # the certificate changed: list it again, and chain again from the seal line
        files["certificate.md"] = attest.digests(cert)
        manifest["files"] = files
        (annex / contract.MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        lines[-1]["blake3"] = attest.digests(annex / contract.MANIFEST)["blake3"]
        lines = lines[:-1] + ledger.chain([lines[-1]], lines[-2]["hash"], len(lines))
        (annex / contract.LEDGER).write_text(ledger.text(lines), encoding="utf-8")
    (annex / contract.README).write_text(
        seal_annex.readme(manifest["arm"], lines[-1]["hash"], keydoc["keyid"]), encoding="utf-8"
    )
    return keydoc


def _copy(sealed, tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name.replace("/", "_")
    shutil.copytree(sealed[0], dst)
    return dst


def _run_main(argv: list[str]) -> tuple[int, str]:
    import contextlib
    import io

    from audit.__main__ import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def _fails(annex: Path, head: str, names: tuple[str, ...]) -> str:
    """verify --head fails (in-process: an uncaught exception fails the test), naming a file."""
    code, err = _run_main(["verify", str(annex), "--head", head])
    assert code in (1, 2), err
    assert any(n in err for n in names), err
    return err


def test_the_forgers_reseal_verifies_without_the_head(sealed, tmp_path: Path) -> None:
    """The forgery itself is competent: with no head to hold it to, it verifies."""
    annex = _copy(sealed, tmp_path, "forged")
    _flip_byte(annex / "census.txt")
    _reseal(annex)
    assert run_audit("verify", annex).code == 0
    assert run_audit("verify", annex, "--head", sealed[1]).code == 1


@pytest.mark.parametrize("lie", ["result", "lists"])
def test_a_signed_verdict_that_contradicts_the_census_fails(sealed, tmp_path: Path, lie) -> None:
    """The seat itself seals with its own key a statement that says more than its annex:
    PASSED over the demo's divergent cells, or those cells among passedTests. The head and
    the key are the seat's own (it publishes both), so only the annex's own census,
    controls and agreement can refuse it: verify, with and without --key, fails."""
    annex = _copy(sealed, tmp_path, f"claims-{lie}")
    result, tests = seal_annex.tests_of(annex)
    # the demo has divergent cells by construction (audit/bundles/demo.py, worked out by
    # hand: "m4 alpha: T F F F -> 25.0; published 40.0"), so its honest verdict is WARNED
    assert result == "WARNED" and any(
        "demo/m4 / alpha_score: divergent" in t for t in tests["failed"]
    )
    if lie == "result":
        verdict = ("PASSED", tests)
    else:
        passed = tests["passed"] + tests["failed"]
        verdict = (result, {"passed": passed, "warned": tests["warned"], "failed": []})
    keydoc = _reseal(annex, verdict=verdict)
    key = tmp_path / f"key-{lie}.json"
    key.write_text(json.dumps(keydoc), encoding="utf-8")
    head = json.loads((annex / contract.LEDGER).read_text().splitlines()[-1])["hash"]
    field = "result" if lie == "result" else "passedTests"
    for extra in ([], ["--key", str(key)]):
        code, err = _run_main(["verify", str(annex), "--head", head, *extra])
        assert code == 1, err
        assert f"the signed {field} is not what the annex's census" in err, err
    # the same reseal with the verdict the annex's files give verifies: the check is the lie
    honest = _copy(sealed, tmp_path, f"honest-{lie}")
    _reseal(honest)
    head = json.loads((honest / contract.LEDGER).read_text().splitlines()[-1])["hash"]
    assert _run_main(["verify", str(honest), "--head", head])[0] == 0


def test_a_key_file_claiming_the_seats_key_id_is_refused(sealed, tmp_path: Path) -> None:
    """A forger's key material under the seat's key id, the envelope signed with it under
    that id and a README printing it: verify (no head, no --key: all a reader without the
    head can do) derives the id from the key material and refuses the file."""
    seat = json.loads((sealed[0] / contract.PUBLIC_KEY).read_text())["keyid"]
    annex = _copy(sealed, tmp_path, "borrowed-id")
    keydoc = _reseal(annex, keyid=seat)
    assert keydoc["keyid"] == seat and f"`{seat}`" in (annex / contract.README).read_text()
    code, err = _run_main(["verify", str(annex)])
    assert code == 2, err
    assert err.startswith(f"error[bad_key]: {annex / contract.PUBLIC_KEY}: claims key id {seat}")
    # the same file trusted as --key is refused the same way, before any comparison
    key = tmp_path / "borrowed.json"
    key.write_text(json.dumps(keydoc), encoding="utf-8")
    code, err = _run_main(["verify", str(sealed[0]), "--key", str(key)])
    assert code == 2 and err.startswith(f"error[bad_key]: {key}: claims key id {seat}"), err


def test_every_file_edited_and_resealed_fails_against_the_head(sealed, tmp_path: Path) -> None:
    for rel in _files(sealed[0]):
        annex = _copy(sealed, tmp_path, f"edit-{rel}")
        _flip_byte(annex / rel)
        # resealing rewrites the manifest whole, so an edit of the manifest itself is
        # tested as it stands; the ledger's lines are edited and rechained below
        if rel not in (contract.LEDGER, contract.README, contract.MANIFEST):
            _reseal(annex)
        _fails(annex, sealed[1], (contract.LEDGER, rel))


def test_every_file_edited_without_reseal_is_named(sealed, tmp_path: Path) -> None:
    for rel in _files(sealed[0]):
        annex = _copy(sealed, tmp_path, f"raw-{rel}")
        _flip_byte(annex / rel)
        _fails(annex, sealed[1], (rel,))


def test_every_file_deleted_and_resealed_fails(sealed, tmp_path: Path) -> None:
    for rel in _files(sealed[0]):
        annex = _copy(sealed, tmp_path, f"del-{rel}")
        (annex / rel).unlink()
        if rel not in contract.UNLISTED and rel != contract.PUBLIC_KEY:
            _reseal(annex)
        _fails(annex, sealed[1], (contract.LEDGER, rel, contract.MANIFEST))


def test_a_file_added_fails_with_or_without_reseal(sealed, tmp_path: Path) -> None:
    annex = _copy(sealed, tmp_path, "added")
    (annex / "controls" / "extra.csv").write_text("x\n1\n", encoding="utf-8")
    _fails(annex, sealed[1], ("controls/extra.csv",))
    _reseal(annex)
    _fails(annex, sealed[1], (contract.LEDGER,))


def test_every_ledger_line_edited_and_rechained_fails(sealed, tmp_path: Path) -> None:
    n = len((sealed[0] / contract.LEDGER).read_text().splitlines())
    for k in range(1, n + 1):
        annex = _copy(sealed, tmp_path, f"line-{k}")
        lines = [json.loads(x) for x in (annex / contract.LEDGER).read_text().splitlines()]
        lines[k - 1]["time"] = "2001-01-01T00:00:00.000000Z"
        (annex / contract.LEDGER).write_text(ledger.text(lines), encoding="utf-8")
        _fails(annex, sealed[1], (contract.LEDGER,))  # the line no longer hashes to its hash
        _reseal(annex, from_line=k)
        _fails(annex, sealed[1], (contract.LEDGER,))


def test_a_forged_certificate_with_deleted_evidence_fails(sealed, tmp_path: Path) -> None:
    """The issue's forgery: better totals, one contestant's run and one control deleted."""
    annex = _copy(sealed, tmp_path, "cert")
    cert = annex / "certificate.md"
    text = cert.read_text(encoding="utf-8")
    assert "23 reproduce, 3 do not" in text
    cert.write_text(text.replace("23 reproduce, 3 do not", "28 reproduce, 0 do not"))
    shutil.rmtree(annex / "recompute" / "pyarrow")
    shutil.rmtree(next((annex / "controls").iterdir()))
    manifest = json.loads((annex / contract.MANIFEST).read_text())
    manifest["arm"] = "anything"
    (annex / contract.MANIFEST).write_text(json.dumps(manifest))
    _reseal(annex)
    _fails(annex, sealed[1], (contract.LEDGER,))
    # and against itself, the deleted evidence and the arm are named even so
    res = run_audit("verify", annex)
    assert res.code == 1
    assert "recompute/pyarrow" in res.stderr and "arm" in res.stderr


# --- the manifest's paths are confined to the annex ---------------------------------


def _edit_manifest(annex: Path, edit) -> None:
    m = json.loads((annex / contract.MANIFEST).read_text())
    edit(m)
    (annex / contract.MANIFEST).write_text(json.dumps(m))


@pytest.mark.parametrize(
    "name",
    ["/etc/passwd", "../outside.txt", "lock/../census.txt", "./census.txt", "a//b", "C:\\x"],
)
def test_a_manifest_path_outside_the_annex_is_refused(sealed, tmp_path: Path, name) -> None:
    annex = _copy(sealed, tmp_path, "paths")
    digest = attest.digests(annex / "census.txt")
    _edit_manifest(annex, lambda m: m["files"].__setitem__(name, digest))
    res = run_audit("verify", annex, "--head", sealed[1])
    assert res.code == 2 and res.stderr.startswith("error[bad_manifest]:"), res.stderr
    assert res.stderr.count("\n") == 1


def test_a_symlink_in_the_annex_is_refused(sealed, tmp_path: Path) -> None:
    annex = _copy(sealed, tmp_path, "link")
    outside = tmp_path / "census-copy.txt"
    shutil.copyfile(annex / "census.txt", outside)
    (annex / "census.txt").unlink()
    (annex / "census.txt").symlink_to(outside)  # same bytes, but not inside the annex
    res = run_audit("verify", annex, "--head", sealed[1])
    assert res.code in (1, 2) and "symbolic link" in res.stderr, res.stderr
    # a linked folder likewise
    annex2 = _copy(sealed, tmp_path, "linkdir")
    shutil.move(annex2 / "report", tmp_path / "report-outside")
    (annex2 / "report").symlink_to(tmp_path / "report-outside")
    res = run_audit("verify", annex2, "--head", sealed[1])
    assert res.code in (1, 2) and "symbolic link" in res.stderr, res.stderr


def test_a_file_listed_twice_is_refused(sealed, tmp_path: Path) -> None:
    annex = _copy(sealed, tmp_path, "twice")
    text = (annex / contract.MANIFEST).read_text()
    entry = '"census.txt": {'
    i = text.index(entry)
    j = text.index("}", i) + 1
    dup = text[:j] + ", " + text[i:j] + text[j:]
    (annex / contract.MANIFEST).write_text(dup)
    res = run_audit("verify", annex, "--head", sealed[1])
    assert res.code == 2 and "appears twice" in res.stderr, res.stderr


def test_a_manifest_field_is_checked_against_the_ledger(sealed, tmp_path: Path) -> None:
    for field, value in (("arm", "other"), ("prereg", {"blake3": "1" * 64})):
        annex = _copy(sealed, tmp_path, f"field-{field}")
        _edit_manifest(annex, lambda m, f=field, v=value: m.__setitem__(f, v))
        _reseal(annex)
        res = run_audit("verify", annex)  # even against itself
        assert res.code == 1 and contract.MANIFEST in res.stderr, res.stderr


# --- compare-annex takes volatility from its own code --------------------------------


def test_compare_annex_refuses_a_manifest_that_declares_what_is_volatile(
    sealed, tmp_path: Path
) -> None:
    annex = _copy(sealed, tmp_path, "volatile")
    _edit_manifest(annex, lambda m: m.__setitem__("volatile", ["^(a+)+$", ""]))
    res = run_audit("compare-annex", sealed[0], annex)
    assert res.code == 2 and res.stderr.startswith("error[bad_manifest]:"), res.stderr


def test_compare_annex_counts_a_changed_content_file_whatever_a_manifest_says(
    sealed, tmp_path: Path
) -> None:
    annex = _copy(sealed, tmp_path, "content")
    _flip_byte(annex / "census_cells.csv")
    _reseal(annex)
    res = run_audit("compare-annex", sealed[0], annex)
    assert res.code == 1 and "DIFFERENT: census_cells.csv: line" in res.stdout, res.stdout


def _edit_lines(path: Path, prefix: str, edit) -> None:
    """Replace the one line starting with ``prefix`` by the lines ``edit`` makes of it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    (k,) = [i for i, ln in enumerate(lines) if ln.startswith(prefix)]
    lines[k : k + 1] = edit(lines[k])
    path.write_text("\n".join(lines), encoding="utf-8")


V, A, W = contract.VULNS_PREFIX, contract.ANCHOR_PREFIX, contract.WRITER_PREFIX
CLAIMS = {  # (file, the line's prefix, the edit): each must be named as a difference
    "sentence after the vulnerability line": (
        "certificate.md",
        V,
        lambda ln: [ln + " Every cell reproduced."],
    ),
    "second line under the vulnerability prefix": (
        "report/report.md",
        V,
        lambda ln: [ln, f"{V}every cell reproduced."],
    ),
    "the same vulnerability line twice": ("certificate.md", V, lambda ln: [ln, ln]),
    "html paragraph under the prefix": (
        "report/report.html",
        f"<p>{V}",
        lambda ln: [f"<p>{V}the leaderboard is right.</p>"],
    ),
    "claim after the anchor": ("certificate.md", A, lambda ln: [ln + " (verified)"]),
    "claim after a writer line's digests": (
        "certificate.md",
        f"{W}leaderboard",
        lambda ln: [ln + " reproduced"],
    ),
}


@pytest.mark.parametrize("case", sorted(CLAIMS))
def test_compare_annex_sets_aside_only_the_contracts_lines_as_they_are(
    sealed, tmp_path: Path, case
) -> None:
    """A line is volatile only as the contract writes it (audit/seal/volatile.py): a first
    seat's sentence under a volatile prefix is a difference, named with its file."""
    rel, prefix, edit = CLAIMS[case]
    annex = _copy(sealed, tmp_path, case.replace(" ", "-"))
    _edit_lines(annex / rel, prefix, edit)
    res = run_audit("compare-annex", sealed[0], annex)
    assert res.code == 1 and f"DIFFERENT: {rel}: line" in res.stdout, res.stdout


def test_compare_annex_sets_aside_another_seats_anchor_and_file_digests(
    sealed, tmp_path: Path
) -> None:
    """What may differ between seats still does: another pre-seal head and other digests of
    the files as shipped (another parquet writer) are set aside, the lines counted."""
    annex = _copy(sealed, tmp_path, "other-seat")
    cert = annex / "certificate.md"
    _edit_lines(cert, A, lambda ln: [f"{A}`{'a' * 64}`"])
    _edit_lines(
        cert,
        f"{W}leaderboard",
        lambda ln: [ln.split(" blake3 ")[0] + f" blake3 `{'b' * 64}` sha256 `{'c' * 64}`"],
    )
    res = run_audit("compare-annex", sealed[0], annex)
    assert res.code == 0, res.stdout
    # the anchor, the two writer lines, the vulnerability audit's line and the
    # time-stamps' line (here: no TSA configured), each in its exact form
    assert "volatile (not counted): certificate.md (differs, 5 volatile line(s) set aside)" in (
        res.stdout
    )


# --- malformed annex files: a classed line or a failed verification, never a traceback ---


TEXT_SUFFIXES = (".json", ".jsonl", ".csv", ".md")


def _check_never_crashes(annex: Path, sealed, rel: str) -> None:
    argvs = [
        ["verify", str(annex), "--head", sealed[1]],
        ["compare-annex", str(sealed[0]), str(annex)],
    ]
    if rel == contract.LEDGER:
        argvs.append(["verify-ledger", str(annex / rel), "--head", sealed[1]])
    for argv in argvs:
        code, err = _run_main(argv)  # in-process: an uncaught exception fails the test
        # compare-annex compares; it does not verify: a volatile file may differ freely
        ok = (0, 1, 2) if argv[0] == "compare-annex" and rel in contract.VOLATILE else (1, 2)
        assert code in ok, (rel, argv[0], code)
        if code == 2:
            assert err.startswith("error[") and err.count("\n") == 1, (rel, err)


@st.composite
def _mutation(draw, originals: dict[str, bytes]):
    rel = draw(st.sampled_from(sorted(originals)))
    data = originals[rel]
    kind = draw(st.sampled_from(["truncate", "flip", "non_utf8", "retype", "nest", "replace"]))
    if kind == "truncate":
        data = data[: draw(st.integers(0, max(0, len(data) - 1)))]
    elif kind == "flip" and data:
        k = draw(st.integers(0, len(data) - 1))
        data = data[:k] + bytes([draw(st.integers(0, 255))]) + data[k + 1 :]
    elif kind == "non_utf8":
        k = draw(st.integers(0, len(data)))
        data = data[:k] + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"])) + data[k:]
    elif kind == "retype":
        data = draw(
            st.sampled_from([b"7", b"7\n", b"[]", b"null", b'"x"', b'{"format": 1}', b"1e999"])
        )
    elif kind == "nest":
        data = b"[" * draw(st.integers(1, 100_000))
    else:
        data = draw(st.binary(max_size=200))
    return rel, data


def test_malformed_annex_files_never_crash_verify_or_compare(sealed, tmp_path: Path) -> None:
    """Every JSON, JSONL, CSV and Markdown file of a real annex, mutated by hypothesis:
    truncated, a byte changed, non-UTF-8 inserted, another JSON type, deep nesting, random
    bytes. verify, compare-annex (and verify-ledger on the ledger) end in a classed refusal
    (exit 2, one line) or a failed check (exit 1); any uncaught exception fails the test."""
    originals = {
        rel: (sealed[0] / rel).read_bytes()
        for rel in _files(sealed[0])
        if rel.endswith(TEXT_SUFFIXES)
    }
    assert {"manifest.json", "ledger.jsonl", "certificate.md", "lock/lock.json"} <= set(originals)
    annex = _copy(sealed, tmp_path, "fuzz")

    @settings(max_examples=150, deadline=None, derandomize=True, database=None)
    @given(_mutation(originals))
    def one(mutation) -> None:
        rel, data = mutation
        if data == originals[rel]:
            return  # a "mutation" that changed nothing: the annex holds, as it should
        try:
            (annex / rel).write_bytes(data)
            _check_never_crashes(annex, sealed, rel)
        finally:
            (annex / rel).write_bytes(originals[rel])

    one()


def test_compare_annex_refuses_a_listed_file_that_is_a_fifo_in_both(sealed, tmp_path: Path) -> None:
    """A listed file that is a FIFO in both annexes was skipped (neither identical nor
    different), so the two agreed; now it is refused, one line, never opened."""
    a, b = _copy(sealed, tmp_path, "fifo-a"), _copy(sealed, tmp_path, "fifo-b")
    for annex in (a, b):
        (annex / "census_cells.csv").unlink()
        os.mkfifo(annex / "census_cells.csv")
    res = run_audit("compare-annex", a, b, timeout=120)
    assert res.code == 2, (res.code, res.stdout, res.stderr)
    assert res.stderr.count("\n") == 1 and "census_cells.csv" in res.stderr, res.stderr
    assert "FIFO" in res.stderr


def test_verify_refuses_an_annex_summary_past_the_read_bound(sealed, tmp_path: Path) -> None:
    """verify derives the signed verdict from the annex's census: one past the bound (a
    sparse file, no bytes written), listed and signed by a forger's reseal, is too_large,
    exit 2, not read whole (with --head it already fails as changed, unread)."""
    annex = _copy(sealed, tmp_path, "big")
    with (annex / "census_cells.csv").open("r+b") as f:
        f.truncate(contract.MAX_TEXT + 1)
    _reseal(annex)
    res = run_audit("verify", annex)
    assert res.code == 2 and res.stderr.startswith("error[too_large]:"), res.stderr
    assert "census_cells.csv" in res.stderr and res.stderr.count("\n") == 1
