"""SWE-bench harness reports joined to a published table by a declared key, to a sealed annex.

The fixtures in tests/intake/swebench/ are written by hand in the shape the harness's
``make_run_report`` (swebench 5.0.2, ``swebench/harness/reporting.py``) writes: every
key it writes, ids sorted, ``schema_version: 2``, the file named
``<model with / as __>.<run_id>.json``. Over a dataset of ten instances d-01..d-10:

- ``acme__coder-1.r1``: resolved d-01..d-06, unresolved d-07, d-08, d-09 an error whose
  report.json was empty (completed, an infra failure), d-10 never predicted (incomplete).
- ``beta.r2``: resolved d-01..d-03, unresolved d-04..d-07, d-08 an empty patch, d-09 an
  error that left no report.json (not completed), d-10 incomplete.
- ``gamma.r1``: resolved d-01..d-04, unresolved d-05..d-10.
- ``delta.r1``: resolved d-01 only; no published row names it.

``published.csv`` prints a % resolved per model: acme__coder-1 60.0, beta 37.5, gamma
50.0, epsilon 55.0 (no report). Worked by hand: an error and an incomplete instance have
a null ``resolved``, an empty patch false. Policy A (null counts as unresolved, over the
ten): acme 6/10 = 60.0, beta 3/10 = 30.0, gamma 4/10 = 40.0. Policy B (nulls left out):
acme 6/8 = 75.0, beta 3/8 = 37.5 (d-08 counts, false), gamma 4/10 = 40.0. So acme is
reproduced under A, beta under B, gamma under neither (nearest 40.0, 10.0 apart), and
epsilon has no data.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest
import yaml

from audit.files import file_blake3
from tests.conftest import ROOT, read_csv_rows, run_audit, run_dag

FIX = ROOT / "tests" / "intake" / "swebench"
PREREG = ROOT / "tests" / "intake" / "swebench.yaml"
REPORTS = sorted(str(p) for p in FIX.glob("*.r*.json"))
PUBLISHED = FIX / "published.csv"


def _adapt(out: Path, *extra: object, reports: list[str] = REPORTS):
    return run_audit(
        "adapt-swebench",
        *reports,
        "--denominators",
        "total",
        "--out",
        out,
        *extra,
    )


def _joined(out: Path):
    return _adapt(out, "--published", PUBLISHED, "--key", "model", "--key-of", "model")


def test_the_published_table_is_the_leaderboard_and_every_instance_row_joins_it(
    tmp_path: Path,
) -> None:
    out = tmp_path / "bundle"
    res = _joined(out)
    assert res.code == 0, res.stderr
    lb = pl.read_parquet(out / "leaderboard.parquet")
    # the published table as shipped: its columns, rows and values
    assert lb.columns == ["model", "name", "resolved", "date"]
    assert lb["model"].to_list() == ["acme__coder-1", "beta", "gamma", "epsilon"]
    assert lb["resolved"].to_list() == [60.0, 37.5, 50.0, 55.0]
    inst = pl.read_parquet(out / "instances.parquet")
    assert inst.columns[0] == "model" and inst.height == 40  # 4 reports x 10 instances
    assert sorted(set(inst["model"].to_list())) == ["acme__coder-1", "beta", "delta", "gamma"]
    # errored and incomplete instances stay, null, their reason in status
    beta = {r["instance_id"]: r for r in inst.filter(pl.col("model") == "beta").to_dicts()}
    assert (beta["d-08"]["status"], beta["d-08"]["resolved"]) == ("empty_patch", False)
    assert (beta["d-09"]["status"], beta["d-09"]["resolved"]) == ("error", None)
    assert beta["d-09"]["completed"] is False
    assert (beta["d-10"]["status"], beta["d-10"]["resolved"]) == ("incomplete", None)
    acme = {r["instance_id"]: r for r in inst.filter(pl.col("model") == "acme__coder-1").to_dicts()}
    assert (acme["d-09"]["resolved"], acme["d-09"]["completed"]) == (None, True)
    assert acme["d-09"]["failure_class"] == "infra"
    doc = json.loads((out / "adapter.json").read_text())
    assert doc["published"]["rows_without_report"] == ["epsilon"]
    assert doc["published"]["reports_without_row"] == ["delta.r1.json"]
    assert doc["published"]["blake3"] == file_blake3(PUBLISHED)
    assert "epsilon" in res.stdout and "delta.r1.json" in res.stdout
    assert "4 leaderboard row(s) written (the published table)" in res.stdout
    draft = yaml.safe_load((out / "prereg.draft.yaml").read_text())
    assert draft["bundle"] == {
        "leaderboard": "leaderboard.parquet",
        "instances": "instances.parquet",
        "row_id": "model",
        "instance_key": ["model", "instance_id"],
        "group_by": "benchmark",
    }
    assert draft["columns"]["structural"] == ["model"]
    assert set(draft["undecided"]["leaderboard.parquet"]) == {"name", "resolved", "date"}


def test_the_key_may_be_the_reports_id(tmp_path: Path) -> None:
    table = tmp_path / "by_id.csv"
    table.write_text("id,resolved\nbeta.r2,37.5\n")
    out = tmp_path / "bundle"
    res = _adapt(out, "--published", table, "--key", "id", "--key-of", "id")
    assert res.code == 0, res.stderr
    inst = pl.read_parquet(out / "instances.parquet")
    assert inst.columns.count("id") == 1
    doc = json.loads((out / "adapter.json").read_text())
    assert len(doc["published"]["reports_without_row"]) == 3


def _refused(res, kind: str, out: Path) -> str:
    assert res.code == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error[{kind}]: "), res.stderr
    assert not out.exists()
    return lines[0]


def test_a_join_that_cannot_be_made_is_refused_with_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    line = _refused(
        _adapt(out, "--published", PUBLISHED, "--key", "agent", "--key-of", "model"),
        "missing_column",
        out,
    )
    assert "no key column 'agent'" in line
    twice = tmp_path / "twice.csv"
    twice.write_text("model,resolved\nbeta,37.5\nbeta,30.0\n")
    line = _refused(
        _adapt(out, "--published", twice, "--key", "model", "--key-of", "model"),
        "duplicate_key",
        out,
    )
    assert "beta more than once" in line
    # a second run of beta: two reports would join one published row
    again = tmp_path / "beta.r3.json"
    shutil.copyfile(FIX / "beta.r2.json", again)
    line = _refused(
        _adapt(
            out,
            "--published",
            PUBLISHED,
            "--key",
            "model",
            "--key-of",
            "model",
            reports=[*REPORTS, str(again)],
        ),
        "duplicate_key",
        out,
    )
    assert "beta.r2.json" in line and "beta.r3.json" in line
    numeric = tmp_path / "numeric.csv"
    numeric.write_text("rank,resolved\n1,37.5\n")
    numeric_pq = tmp_path / "numeric.parquet"
    pl.read_csv(numeric).write_parquet(numeric_pq)  # parquet keeps the integer type
    _refused(
        _adapt(out, "--published", numeric_pq, "--key", "rank", "--key-of", "model"),
        "bad_type",
        out,
    )
    renamed = tmp_path / "status.csv"
    renamed.write_text("status,resolved\nbeta,37.5\n")
    _refused(
        _adapt(out, "--published", renamed, "--key", "status", "--key-of", "model"),
        "bad_args",
        out,
    )
    _refused(_adapt(out, "--published", PUBLISHED, "--key", "model"), "bad_args", out)
    _refused(
        _adapt(out, "--published", PUBLISHED, "--key", "model", "--key-of", "name"),
        "bad_args",
        out,
    )
    _refused(_adapt(out, "--key", "model", "--key-of", "model"), "bad_args", out)


@pytest.mark.slow
def test_reports_and_a_published_table_to_a_sealed_annex(impl_envs, tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    assert _joined(bundle).code == 0
    draft = tmp_path / "draft.yaml"
    assert run_audit("draft-prereg", bundle, "--out", draft).code == 0
    assert yaml.safe_load(draft.read_text())["seed"] == "UNDECIDED"
    config = tmp_path / "arm.yaml"
    config.write_text(
        f"arm: swebench-intake\nseat: first\nbundle: {bundle}\nprereg: {PREREG}\n"
        f"prereg_blake3: {file_blake3(PREREG)}\n"
    )
    p = run_dag(tmp_path, "--configfile", str(config))
    assert p.returncode == 0, p.stderr[-3000:]
    res = tmp_path / "results" / "swebench-intake"
    assert (res / "annex" / "manifest.json").is_file()
    agreement = json.loads((res / "agreement.json").read_text())
    assert agreement["disagreements"] == 0 and agreement["all_byte_identical"]
    cells = {
        c["row_id"]: c for c in read_csv_rows(res / "census_cells.csv") if c["column"] == "resolved"
    }
    got = {r: (c["class"], c["policies"]) for r, c in cells.items()}
    assert got == {
        "acme__coder-1": ("reproduced", "A"),
        "beta": ("reproduced", "B"),
        "gamma": ("divergent", ""),
        "epsilon": ("no_data", ""),
    }
    assert cells["gamma"]["min_abs_diff"] == "10.000000"
    assert {c["verdict"] for c in read_csv_rows(res / "controls.csv")} == {"pass"}
