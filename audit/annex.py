"""Seal the annex: everything a second seat needs to verify and rerun the audit.

Order: copy the outputs, write certificate.md (anchoring the ledger's head as
it stands), README.md and run.json, then manifest.json (blake3 of every file
but itself and the ledger), then append ``annex_sealed`` (subject: the
manifest) to the ledger, and copy the ledger in last.
"""

from __future__ import annotations

import json
import platform
import shutil
from datetime import UTC, datetime
from pathlib import Path

from audit import certificate, ledger, prereg, trials_prereg
from audit.errors import AuditError
from audit.files import file_blake3, write_atomic

FORMAT = "secondseat-annex-v1"
# Files whose bytes depend on when and where the seat ran; never counted as agreement.
VOLATILE = ["README.md", "ledger.jsonl", "run.json"]
VOLATILE_LINES = {"certificate.md": [f"^{certificate.ANCHOR_PREFIX}"]}
COPIED = [
    "lock/prereg.yaml",
    "lock/lock.json",
    "agreement.json",
    "agreement.md",
    "census.txt",
    "census.json",
    "census_columns.csv",
    "census_cells.csv",
    "controls.csv",
    "controls.md",
    "ledger-receipt.json",
]
# The self-test's kill matrix (python -m audit self-test): in the annex when the prereg asks
SELF_TEST = ["self-test.md", "self-test.csv"]
COPIED_GLOBS = [
    "recompute/*/run1/*.csv",
    "recompute/*/runs-identical.json",
    "controls/*/prediction.csv",
    "controls/*/selection.json",
    "controls/*/stamp.json",
    "controls/*/check.csv",
    "controls/*/verdict.json",
    "report/*",
    # trials arms (docs/trials-contract.md): adapter output, referee summaries
    "bundle/adapter.json",
    "bundle/trials.parquet",
    "intervals.csv",
    "recovery.csv",
    "recovery_rows.csv",
    "entries.csv",
    "settings/*",
    "compare/*",
]


def _readme(arm: str, head: str) -> str:
    return f"""# secondseat annex: arm {arm}

Ledger head anchored by certificate.md: `{head}`

Verify (hashes, ledger chain, head, schemas):

    uv run python -m audit verify results/{arm}/annex --head {head}

Rerun as a second seat, in a clean clone, on your own copy of the bundle:

    uv run snakemake --cores 2 [--configfile config/<arm>.yaml] \\
        --config seat=second annex=<this folder> bundle=<bundle folder>
    uv run python -m audit compare-annex <this folder> results/{arm}/annex

Volatile files (times, this seat's ledger): {", ".join(VOLATILE)}; in certificate.md the
anchor line. Everything else must be byte-identical between seats.
"""


def _self_test(res: Path) -> list[Path]:
    """The kill matrix, if the locked prereg asks for it (key self_test); it must exist then."""
    locked = res / "lock" / "prereg.yaml"
    if trials_prereg.is_trials(locked) or not prereg.load(str(locked)).get("self_test"):
        return []
    missing = [f for f in SELF_TEST if not (res / f).is_file()]
    if missing:
        raise AuditError("missing_file", str(res / missing[0]), "the prereg asks for the self-test")
    return [res / f for f in SELF_TEST]


def seal(res_dir: str, arm: str, ledger_path: str, out_dir: str) -> tuple[str, str]:
    """Write the annex; return (anchored head, final head)."""
    res, out = Path(res_dir), Path(out_dir)
    tmp = out.with_name(f".{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    files = [res / f for f in COPIED if (res / f).exists()]
    for pattern in COPIED_GLOBS:
        files += sorted(p for p in res.glob(pattern) if p.is_file())
    files += _self_test(res)
    for src in files:
        dst = tmp / src.relative_to(res)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    anchored = ledger.head(ledger_path)
    if trials_prereg.is_trials(res / "lock" / "prereg.yaml"):
        from audit import trials_report

        doc = trials_prereg.load(res / "lock" / "prereg.yaml")
        cert = trials_report.certificate(res, doc, anchored)
    else:
        doc = prereg.load(res / "lock" / "prereg.yaml")
        cert = certificate.render(res, doc, anchored)
    write_atomic(tmp / "certificate.md", cert)
    write_atomic(tmp / "README.md", _readme(arm, anchored))
    run = {
        "sealed_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": platform.python_version(),
    }
    write_atomic(tmp / "run.json", json.dumps(run, indent=2, sort_keys=True) + "\n")
    listed = sorted(p for p in tmp.rglob("*") if p.is_file())
    manifest = {
        "format": FORMAT,
        "arm": arm,
        "files": {str(p.relative_to(tmp)): file_blake3(p) for p in listed},
        "volatile": VOLATILE,
        "volatile_lines": VOLATILE_LINES,
    }
    write_atomic(tmp / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    tmp.replace(out)
    entry = ledger.append(ledger_path, "annex_sealed", str(out / "manifest.json"))
    shutil.copyfile(ledger_path, out / "ledger.jsonl")
    return anchored, str(entry["hash"])
