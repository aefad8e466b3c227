"""The lock's own checks of a shipped bundle's other files, made before any job (issue 27).

A leaderboard bundle may hold a fetch record (hf-source.json: each file it records with
its sha256) and, with the prereg's publisher_hash, the publisher's digest and a table
the recipe must be able to write. The lock judged them alone, so on a shipped bundle a
bad one ran the lock job: a record fetch-hf did not write (its files a list) or a digest
that is not UTF-8 ended it in a traceback (exit 1), a file whose sha256 is not the one
recorded in hash_mismatch with Snakemake's exit 1, and a column the recipe does not
define (a date) in the lock's line, each leaving the lock's log under results/<arm>/.
Now the run judges them as it is read, with the lock's own code
(audit/bundles/hf_source.py check, audit/bundles/publisher_hash.py judge): one line,
exit 2, nothing under results/<arm>/ (the workflow run for real).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_dag

PUBLISHED = (
    "\npublisher_hash: {recipe: openhands-source-hash-v1, table: leaderboard, file: hash.txt}"
)


def _record(files: object) -> bytes:
    return json.dumps({"repo": "owner/name", "commit": "0" * 40, "files": files}).encode()


def _listed(bundle: Path) -> None:
    """A fetch record whose files are a list, not fetch-hf's mapping of name to hashes."""
    (bundle / "hf-source.json").write_bytes(_record(["leaderboard.parquet"]))


def _other_sha(bundle: Path) -> None:
    """A fetch record naming the leaderboard with a sha256 that is not its bytes' (the
    true one with its last digit changed, worked out here with hashlib)."""
    true = hashlib.sha256((bundle / "leaderboard.parquet").read_bytes()).hexdigest()
    other = true[:-1] + ("0" if true[-1] != "0" else "1")
    entry = {"sha256": other, "hub": {"sha256": other}}
    (bundle / "hf-source.json").write_bytes(_record({"leaderboard.parquet": entry}))


def _digest_not_utf8(bundle: Path) -> None:
    (bundle / "hash.txt").write_bytes(b"\xff\xfe")


def _date_label(bundle: Path) -> None:
    """The no_antecedent label release as a date: any type for the contestants, a type
    the publisher_hash recipe does not define."""
    (bundle / "hash.txt").write_bytes(b"0" * 64 + b"\n")
    lb = pl.read_parquet(bundle / "leaderboard.parquet")
    lb = lb.with_columns(pl.lit("2024-01-01").str.to_date().alias("release"))
    lb.write_parquet(bundle / "leaderboard.parquet")


# case: (how the bundle is made, the prereg declares publisher_hash, class, file, words)
CASES = {
    "fetch record not fetch-hf's": (_listed, False, "unreadable", "hf-source.json", "not a fetch"),
    "fetched file changed": (_other_sha, False, "hash_mismatch", "leaderboard.parquet", "sha256"),
    "published digest not UTF-8": (_digest_not_utf8, True, "unreadable", "hash.txt", "not UTF-8"),
    "a column the recipe does not define": (
        _date_label,
        True,
        "unsupported_type",
        "leaderboard.parquet",
        "column 'release' is Date: the publisher_hash recipe does not define it",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_lock_s_file_checks_refuse_a_shipped_bundle_before_any_job(
    case: str, tmp_path: Path, demo_bundle: Path
) -> None:
    make, declared, kind, file, words = CASES[case]
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_bundle, bundle)
    make(bundle)
    text = (ROOT / "prereg" / "demo.yaml").read_text(encoding="utf-8")
    assert "\nseed: 7\n" in text
    prereg = tmp_path / "prereg.yaml"
    prereg.write_text(text.replace("\nseed: 7\n", f"{PUBLISHED}\nseed: 7\n") if declared else text)
    config = [f"prereg={prereg}", f"prereg_blake3={file_blake3(prereg)}", f"bundle={bundle}"]
    p = run_dag(tmp_path, "--config", *config)
    assert p.returncode == 2, p.stdout[-2000:] + p.stderr[-2000:]
    lines = [x for x in p.stderr.splitlines() if x.startswith("error[")]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr[-3000:]
    assert lines[0].startswith(f"error[{kind}]: {bundle}/{file}: "), lines
    assert words in lines[0], lines
    assert not (tmp_path / "results" / "demo").exists()
