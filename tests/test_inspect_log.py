"""Inspect eval logs, read with inspect_ai's own read_eval_log.

The logs are made by inspect_ai itself: a four-sample task run on its mock model
(``mockllm/model`` with fixed replies), scored by ``match()``. It is the worked example
of compare-items (issue 18): targets A, B, A, B; harness X replies A, A, A, B (an
``.eval`` log), harness Y replies B, B, A, B (a ``.json`` log, its dataset listed in
another order). By hand: each is right on 3 of 4 (accuracy 0.75); the sample standard
error of the mean of (1, 0, 1, 1) is sd / sqrt(4) with sd = sqrt(0.75 / 3) = 0.5, so
0.25. The two runs' prompts are the same, their raw outputs differ on J01 and J02, so
that is where those items first differ; only X is right on J01, only Y on J02.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import run_audit

# Importing inspect_ai takes 10 to 30 s on a busy 2-core machine.
pytestmark = pytest.mark.slow

MAKE = r"""
import sys
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate

TARGETS = {"J01": "A", "J02": "B", "J03": "A", "J04": "B"}

def replies(text):
    out = []
    for c in text:
        o = ModelOutput.from_content(model="mockllm/model", content=c)
        o.usage = ModelUsage(input_tokens=3, output_tokens=1, total_tokens=4)  # no tokenizer
        out.append(o)
    return out

def run(order, reply, fmt, scorer, log_dir):
    samples = [Sample(id=i, input=f"question {i}", target=TARGETS[i]) for i in order]
    task = Task(dataset=samples, solver=generate(), scorer=scorer)
    [log] = eval(task, model="mockllm/model", model_args={"custom_outputs": replies(reply)},
                 log_dir=log_dir, display="none", log_format=fmt)
    assert log.status == "success", log.error

out = sys.argv[1]
run(["J01", "J02", "J03", "J04"], "AAAB", "eval", match(), f"{out}/x")
run(["J03", "J01", "J04", "J02"], "ABBB", "json", match(), f"{out}/y")  # Y: B, B, A, B
run(["J01", "J02"], "AB", "json", [match(), includes()], f"{out}/two")
run(["J01", "J02"], "AB", "json", [], f"{out}/unscored")  # no scorer at all
"""


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("inspect")
    p = subprocess.run(
        [sys.executable, "-c", MAKE, str(out)], check=False, capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr[-3000:]
    return out


def _one(folder: Path) -> Path:
    [log] = [p for p in folder.iterdir() if p.suffix in (".eval", ".json")]
    return log


def test_samples_become_trials_and_items_and_the_header_the_claim(
    tmp_path: Path, logs: Path
) -> None:
    res = run_audit("adapt-inspect", _one(logs / "x"), "--out", tmp_path / "x")
    assert res.code == 0, res.stderr
    trials = pl.read_parquet(tmp_path / "x" / "trials.parquet").sort("task")
    assert trials["task"].to_list() == ["J01", "J02", "J03", "J04"]
    assert trials["status"].to_list() == ["scored"] * 4
    assert trials["reward"].to_list() == [1.0, 0.0, 1.0, 1.0]
    items = pl.read_parquet(tmp_path / "x" / "items.parquet").sort("item_id")
    assert items["answer"].to_list() == ["A", "A", "A", "B"]
    assert items["target"].to_list() == ["A", "B", "A", "B"]
    [claim] = json.loads((tmp_path / "x" / "claim.json").read_text())["logs"]
    assert claim["scorer"] == "match" and claim["completed_samples"] == 4
    assert claim["metrics"]["match"] == {"accuracy": 0.75, "stderr": 0.25}


def test_two_inspect_logs_through_compare_items(tmp_path: Path, logs: Path) -> None:
    for side in ("x", "y"):
        res = run_audit("adapt-inspect", _one(logs / side), "--out", tmp_path / side)
        assert res.code == 0, res.stderr
    res = run_audit(
        "compare-items",
        tmp_path / "x" / "items.parquet",
        tmp_path / "y" / "items.parquet",
        "--out",
        tmp_path / "cmp",
    )
    assert res.code == 0, res.stderr
    summary = json.loads((tmp_path / "cmp" / "compare-items.json").read_text())
    assert summary["first_boundary"]["output"] == 2 and summary["first_boundary"]["none"] == 2
    assert summary["answers_agree"] == 2
    assert summary["paired"] == {
        "both_right": 2,
        "only_a": 1,
        "only_b": 1,
        "both_wrong": 0,
        "right_a": 3,
        "right_b": 3,
    }
    # Inspect records no token ids, nor an inclusion flag: assumed on both sides.
    assert summary["assumed"]["tokens"] == {"both": 4}


def test_two_scorers_need_one_named(tmp_path: Path, logs: Path) -> None:
    log = _one(logs / "two")
    res = run_audit("adapt-inspect", log, "--out", tmp_path / "a")
    assert res.code == 2 and res.stderr.startswith("error[ambiguous_scorer]:"), res.stderr
    assert not (tmp_path / "a").exists()
    res = run_audit("adapt-inspect", log, "--scorer", "includes", "--out", tmp_path / "b")
    assert res.code == 0, res.stderr


def test_a_file_that_is_not_a_log_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a log"}')
    res = run_audit("adapt-inspect", bad, "--out", tmp_path / "o")
    assert res.code == 2 and res.stderr.startswith("error[unreadable]:"), res.stderr
    assert res.stderr.count("\n") == 1


def test_an_unscored_log_is_refused_as_unscored(tmp_path: Path, logs: Path) -> None:
    log = _one(logs / "unscored")
    res = run_audit("adapt-inspect", log, "--out", tmp_path / "o")
    assert res.code == 2, res.stderr
    assert res.stderr.strip() == (
        f"error[unscored]: {log}: no scorer ran: the log holds no score to read"
    )
    assert not (tmp_path / "o").exists()


def test_the_claim_is_a_leaderboard_the_trials_join_by_run(tmp_path: Path, logs: Path) -> None:
    res = run_audit("adapt-inspect", _one(logs / "x"), "--out", tmp_path / "x")
    assert res.code == 0, res.stderr
    assert "1 log(s), 4 trial row(s) written" in res.stdout
    lb = pl.read_parquet(tmp_path / "x" / "leaderboard.parquet")
    trials = pl.read_parquet(tmp_path / "x" / "trials.parquet")
    assert lb.height == 1 and set(trials["run"]) == set(lb["run"])
    row = lb.row(0, named=True)
    # by hand (module docstring): accuracy 0.75, stderr 0.25, 4 of 4 samples
    assert (row["accuracy"], row["stderr"]) == (0.75, 0.25)
    assert (row["completed_samples"], row["rows_written"], row["scorer"]) == (4, 4, "match")


def test_a_log_holding_fewer_samples_than_its_header_counts_is_a_finding(
    tmp_path: Path, logs: Path
) -> None:
    doc = json.loads(_one(logs / "y").read_text())  # a .json log: its samples a list
    assert doc["results"]["completed_samples"] == 4
    doc["samples"] = doc["samples"][:1]
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(doc))
    res = run_audit("adapt-inspect", cut, "--out", tmp_path / "o")
    assert res.code == 0, res.stderr
    assert "the header counts 4 completed sample(s); the log holds 1" in res.stdout
    assert "1 log(s), 1 trial row(s) written" in res.stdout
    [claim] = json.loads((tmp_path / "o" / "claim.json").read_text())["logs"]
    assert claim["rows"] == 1 and claim["completed_samples"] == 4


def test_a_batch_lists_and_skips_a_file_that_is_not_a_log(tmp_path: Path, logs: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a log"}')
    good = _one(logs / "x")
    res = run_audit("adapt-inspect", bad, good, "--out", tmp_path / "o")
    assert res.code == 0, res.stderr
    assert "skipped 1 record(s) that could not be read:" in res.stdout
    assert f"    {bad}: error[unreadable]: {bad}: not an Inspect eval log" in res.stdout
    assert pl.read_parquet(tmp_path / "o" / "trials.parquet").height == 4
    res = run_audit("adapt-inspect", good, bad, "--all-or-nothing", "--out", tmp_path / "s")
    assert res.code == 2 and res.stderr.startswith(f"error[unreadable]: {bad}:")
    assert not (tmp_path / "s").exists()


def test_a_log_whose_header_inflates_past_the_bound_is_refused(tmp_path: Path, logs: Path) -> None:
    """The .eval log of X with its header padded by 50 MB of spaces (still valid JSON, so
    inspect_ai would read it): deflated, the member is about 50 KB, a ratio near 1000,
    past the bound of 100 (audit/adapters/inspect_log.py). Refused before it is read."""
    import zipfile

    import zipfile_zstd  # noqa: F401 - inspect_ai writes zstd members; this teaches zipfile them

    src = _one(logs / "x")
    bomb = tmp_path / "bomb.eval"
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for info in z.infolist():
            data = z.read(info)
            if info.filename == "header.json":
                data += b" " * 50_000_000
            out.writestr(info.filename, data)
    header = zipfile.ZipFile(bomb).getinfo("header.json")
    assert header.file_size > 100 * header.compress_size  # the ratio, from the archive
    res = run_audit("adapt-inspect", bomb, "--out", tmp_path / "out")
    assert res.code == 2, res.stderr
    assert res.stderr.startswith(f"error[too_large]: {bomb}: member 'header.json' inflates")
    assert not (tmp_path / "out").exists()
