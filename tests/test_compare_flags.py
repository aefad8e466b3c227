"""A trials prereg's optional compare keys reach compare-runs as the flags they name.

The BenchFlow sample's prereg with every optional key of its `compare` block set
to a value other than the command's default (`difference`, `unit`, `reward`,
`broken`, `alpha`, `power`), run through the workflow up to the comparison.
compare_flags once spread those keys into one-character arguments, so
compare-runs refused the run (exit 1) after the lock. What it received is read
back from compare.json, and its files must equal those of compare-runs run by
hand with the flags written out here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.files import file_blake3
from tests.conftest import ROOT, run_audit, run_dag

SHARED = (ROOT / ".." / "shared" / "bundles").resolve()
ARM = "compare-flags"
OPTIONAL = {  # none of them the command's default (A-B, reward, original, as_zero, 0.05, 0.8)
    "difference": "B-A",
    "unit": "points",
    "reward": "regraded",
    "broken": "exclude_trial",
    "alpha": 0.01,
    "power": 0.9,
}


@pytest.mark.slow
@pytest.mark.realbundle
def test_every_optional_compare_key_reaches_compare_runs(tmp_path: Path) -> None:
    bundle = SHARED / "benchflow-trials-sample"
    if not bundle.is_dir():
        pytest.skip("real bundle not present at ../shared/bundles/benchflow-trials-sample")
    text = (ROOT / "prereg" / "benchflow-sample.yaml").read_text(encoding="utf-8")
    head, sep, rest = text.partition("  draws: 10000\n")
    assert sep, "the sample prereg's compare block changed: update this test"
    keys = "".join(f"  {k}: {v}\n" for k, v in OPTIONAL.items())
    prereg = tmp_path / "compare-flags.yaml"
    prereg.write_text(head + "  draws: 400\n" + keys + rest, encoding="utf-8")
    p = run_dag(
        tmp_path,
        "--config",
        f"arm={ARM}",
        f"bundle={bundle}",
        f"prereg={prereg}",
        f"prereg_blake3={file_blake3(prereg)}",
        "--",
        f"results/{ARM}/compare/compare.json",
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    out = tmp_path / "results" / ARM / "compare"
    got = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    received = {k: got[k] for k in ("difference", "unit", "reward", "broken")}
    assert received == {k: OPTIONAL[k] for k in received}
    assert (got["power"]["alpha"], got["power"]["power"]) == ("0.010000", "0.900000")
    assert got["draws"] == 400 and got["seed"] == 20260801

    # compare-runs by hand, every flag written out: the same files, byte for byte
    by_hand = tmp_path / "by-hand"
    r = run_audit(
        "compare-runs", "skills", "no_skills", "--trials", tmp_path / "results" / ARM / "bundle" / "trials.parquet",
        "--denominator", "attempted", "--k", "1,5", "--seed", "20260801", "--draws", "400",
        "--under-study", "task_source,task_checksum,timeout_multiplier,force_build",
        "--difference", "B-A", "--unit", "points", "--reward", "regraded",
        "--broken", "exclude_trial", "--alpha", "0.01", "--power", "0.9", "--out", by_hand,
    )  # fmt: skip
    assert r.code == 0, r.stderr
    for name in ("compare.json", "pairs.csv", "compare.txt"):
        assert (out / name).read_bytes() == (by_hand / name).read_bytes(), name
