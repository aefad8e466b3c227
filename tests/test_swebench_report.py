"""SWE-bench run reports (schema v2) into an instance table.

The reports are written by SWE-bench's own harness: ``make_run_report`` (swebench
5.0.2, in its own environment .venvs/swebench) over predictions, a dataset and the
per-instance ``report.json`` files the evaluation leaves in ``logs/run_evaluation``.

Fixture ``org/model-4.1`` run ``eval1`` (worked by hand): the dataset is p-1..p-8;
predictions for p-1..p-6 and x-9 (not in the dataset); p-4's patch is empty. p-1's
report says resolved, p-2's unresolved, p-3's is an empty file (an error, but
completed); p-5 and p-6 left no report (errors, not completed); p-7 and p-8 have no
prediction (incomplete). So: total 8, submitted 7 (x-9 counts, as the harness counts
it), completed 3 (p-1..p-3), resolved 1: 1/8, 1/7, 1/3 under the three policies.
Fixture ``plain`` run ``r2``: all eight predicted, every report written, p-7 unresolved:
7/8 under each policy.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import ROOT, run_audit

# Syncing SWE-bench's environment and importing its harness take 15 to 60 s.
pytestmark = pytest.mark.slow

HARNESS = r"""
import json, os, sys
from swebench.harness.constants import LOG_REPORT, RUN_EVALUATION_LOG_DIR
from swebench.harness.reporting import make_run_report

def run(model, run_id, dataset, patches, reports):
    preds = {i: {"instance_id": i, "model_name_or_path": model, "model_patch": p}
             for i, p in patches.items()}
    for iid, body in reports.items():
        d = RUN_EVALUATION_LOG_DIR / run_id / model.replace("/", "__") / iid
        d.mkdir(parents=True, exist_ok=True)
        (d / LOG_REPORT).write_text(body)
    make_run_report(preds, [{"instance_id": i} for i in dataset], run_id, client=None)

def verdict(iid, resolved):
    return json.dumps({iid: {"resolved": resolved}})

ids = [f"p-{n}" for n in range(1, 9)]
run("org/model-4.1", "eval1", ids,
    {**{f"p-{n}": "diff" for n in (1, 2, 3, 5, 6)}, "p-4": "", "x-9": "diff"},
    {"p-1": verdict("p-1", True), "p-2": verdict("p-2", False), "p-3": ""})
run("plain", "r2", ids, {i: "diff" for i in ids},
    {i: verdict(i, i != "p-7") for i in ids})
run("empty", "r3", [], {"p-1": "diff"}, {})
"""


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    env_dir = ROOT / ".venvs" / "swebench"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["UV_PROJECT_ENVIRONMENT"] = str(env_dir)
    subprocess.run(
        [
            os.environ.get("UV", "uv"),
            "sync",
            "--project",
            str(ROOT),
            "--frozen",
            "-q",
            "--only-group",
            "swebench-fixtures",
        ],
        check=True,
        env=env,
        cwd=ROOT,
    )
    out = tmp_path_factory.mktemp("swebench")
    (out / "harness.py").write_text(HARNESS)
    p = subprocess.run(
        [str(env_dir / "bin" / "python"), "harness.py"],
        check=False,
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    return out


def _adapt(tmp: Path, *files: Path, policies: str = "total,submitted,completed"):
    return run_audit("adapt-swebench", *files, "--denominators", policies, "--out", tmp / "out")


def test_reports_become_an_instance_table_with_declared_denominators(
    tmp_path: Path, reports: Path
) -> None:
    a, b = reports / "org__model-4.1.eval1.json", reports / "plain.r2.json"
    res = _adapt(tmp_path, a, b)
    assert res.code == 0, res.stderr
    table = pl.read_parquet(tmp_path / "out" / "instances.parquet")
    assert table.height == 16
    one = table.filter(pl.col("id") == "org__model-4.1.eval1").sort("instance_id")
    assert one["status"].to_list() == [
        "resolved",
        "unresolved",
        "error",
        "empty_patch",
        "error",
        "error",
        "incomplete",
        "incomplete",
    ]
    assert one["submitted"].to_list() == [True] * 6 + [False] * 2
    assert one["completed"].to_list() == [True] * 3 + [False] * 5
    # judged: p-1 resolved, p-2 unresolved, p-4's empty patch unresolved; the errors
    # (p-3, p-5, p-6) and the incomplete (p-7, p-8) were never judged: null
    assert one["resolved"].to_list() == [True, False, None, False, None, None, None, None]
    lb = pl.read_parquet(tmp_path / "out" / "leaderboard.parquet").sort("id")
    assert lb["id"].to_list() == ["org__model-4.1.eval1", "plain.r2"]
    assert lb.row(0, named=True) == {
        "id": "org__model-4.1.eval1",
        "benchmark": "swe-bench",
        "model": "org__model-4.1",
        "run_id": "eval1",
        "total_instances": 8,
        "submitted_instances": 7,
        "resolved_instances": 1,
        "unresolved_instances": 1,
        "error_instances": 3,
        "empty_patch_instances": 1,
        "completed_instances": 3,
    }  # the fixture's counts, worked by hand in the module's docstring
    assert "16 instance row(s), 2 leaderboard row(s) written" in res.stdout
    doc = json.loads((tmp_path / "out" / "adapter.json").read_text())
    e = doc["entries"]["org__model-4.1.eval1"]
    assert e["model"] == "org__model-4.1" and e["run_id"] == "eval1"
    assert {p: r["rate"] for p, r in e["policies"].items()} == {
        "total": "1/8",
        "submitted": "1/7",
        "completed": "1/3",
    }
    assert e["submitted_outside_dataset"] == ["x-9"]
    assert {p: r["rate"] for p, r in doc["entries"]["plain.r2"]["policies"].items()} == {
        "total": "7/8",
        "submitted": "7/8",
        "completed": "7/8",
    }


def test_only_the_declared_denominators_are_reported(tmp_path: Path, reports: Path) -> None:
    res = _adapt(tmp_path, reports / "plain.r2.json", policies="completed")
    assert res.code == 0, res.stderr
    doc = json.loads((tmp_path / "out" / "adapter.json").read_text())
    assert list(doc["entries"]["plain.r2"]["policies"]) == ["completed"]
    res = _adapt(tmp_path / "x", reports / "plain.r2.json", policies="attempted")
    assert res.code == 2 and res.stderr.startswith("error[bad_args]:")


def _edited(tmp: Path, reports: Path, edit) -> Path:
    doc = json.loads((reports / "org__model-4.1.eval1.json").read_text())
    edit(doc)
    path = tmp / "org__model-4.1.eval1.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize(
    ("edit", "kind", "words"),
    [
        (lambda d: d.update(schema_version=1), "bad_report", "schema_version is 1"),
        (lambda d: d.pop("completed_ids"), "bad_report", "completed_ids"),
        (lambda d: d.update(resolved_instances=2), "inconsistent_report", "resolved_instances"),
        (
            lambda d: d["unresolved_ids"].append("p-1") or d.update(unresolved_instances=2),
            "inconsistent_report",
            "p-1 is in both resolved_ids and unresolved_ids",
        ),
        (lambda d: d.update(total_instances=9), "inconsistent_report", "total_instances is 9"),
        (
            lambda d: d["completed_ids"].append("p-4") or d.update(completed_instances=4),
            "inconsistent_report",
            "p-4 completed but neither judged nor an error",
        ),
    ],
    ids=["schema", "missing-key", "count", "two-classes", "total", "completed-stray"],
)
def test_an_inconsistent_report_is_refused(tmp_path, reports, edit, kind, words) -> None:
    res = _adapt(tmp_path, _edited(tmp_path, reports, edit))
    assert res.code == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(f"error[{kind}]:"), res.stderr
    assert words in res.stderr
    assert not (tmp_path / "out").exists()


def test_a_report_of_no_instance_is_refused(tmp_path: Path, reports: Path) -> None:
    res = _adapt(tmp_path, reports / "plain.r2.json", reports / "empty.r3.json")
    assert res.code == 2 and res.stderr.startswith("error[empty]:"), res.stderr
    assert not (tmp_path / "out").exists()


def test_a_batch_lists_and_skips_a_report_it_cannot_read(tmp_path: Path, reports: Path) -> None:
    bad = tmp_path / "broken.r9.json"
    bad.write_text("{not json")
    res = _adapt(tmp_path, bad, reports / "plain.r2.json")
    assert res.code == 0, res.stderr
    assert "8 instance row(s), 1 leaderboard row(s) written" in res.stdout
    assert f"    {bad}: error[unreadable]: {bad}: not JSON" in res.stdout
    doc = json.loads((tmp_path / "out" / "adapter.json").read_text())
    assert [s["file"] for s in doc["skipped"]] == [str(bad)]
    res = run_audit(
        "adapt-swebench", reports / "plain.r2.json", bad, "--denominators", "total",
        "--all-or-nothing", "--out", tmp_path / "strict",
    )  # fmt: skip
    assert res.code == 2 and res.stderr.startswith(f"error[unreadable]: {bad}:")
    assert not (tmp_path / "strict").exists()
