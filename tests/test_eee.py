"""Every Eval Ever records: checksum and row count checked, then mapped into trials.

The records are built here field by field from the EvalEval Coalition's published
schemas (eval.schema.json, instance_level_eval.schema.json, schema 0.3): the
every-eval-ever package itself needs Python >= 3.12 and huggingface-hub < 1, so it
cannot join this project's lock. The sidecar is written as the datastore lays it out
(``data/<collection>/<developer>/<model>/<uuid>_samples.jsonl`` beside the aggregate)
and its sha256 is taken over the exact bytes written, as the format's publisher does.

Worked example (compare-items, issue 18): targets A, B, A, B; X answers A, A, A, B;
Y answers B, B, A, B; each 3/4 correct, scores 0.75.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

import polars as pl
import pytest

from tests.conftest import run_audit

TARGETS = {"J01": "A", "J02": "B", "J03": "A", "J04": "B"}


def _instance(eval_id: str, model: str, sid: str, answer: str) -> dict:
    right = answer == TARGETS[sid]
    return {
        "schema_version": "0.3.0",
        "evaluation_id": eval_id,
        "model_id": model,
        "evaluation_name": "letters",
        "sample_id": sid,
        "interaction_type": "single_turn",
        "input": {"raw": f"question {sid}", "reference": [TARGETS[sid]]},
        "output": {"raw": [f"The answer is {answer}."]},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": answer,
                "extraction_method": "regex",
                "is_terminal": True,
            }
        ],
        "evaluation": {"score": 1.0 if right else 0.0, "is_correct": right},
    }


def write_record(root: Path, model: str, answers: dict[str, str], order: list[str]) -> Path:
    developer, name = model.split("/")
    folder = root / "data" / "letters" / developer / name
    folder.mkdir(parents=True)
    file_uuid = str(uuid.uuid4())
    eval_id = f"letters/{model}/{file_uuid[:8]}"
    body = "".join(
        json.dumps(_instance(eval_id, model, sid, answers[sid])) + "\n" for sid in order
    ).encode("utf-8")
    (folder / f"{file_uuid}_samples.jsonl").write_bytes(body)
    right = sum(answers[s] == TARGETS[s] for s in TARGETS)
    aggregate = {
        "schema_version": "0.3.0",
        "evaluation_id": eval_id,
        "retrieved_timestamp": "1780000000",
        "source_metadata": {"source_type": "evaluation_run", "source_organization_name": "t"},
        "eval_library": {"name": "handmade", "version": "1"},
        "model_info": {"name": name, "id": model, "additional_details": {}},
        "evaluation_results": [
            {
                "evaluation_result_id": "letters/accuracy",
                "evaluation_name": "letters",
                "source_data": {"dataset_name": "letters", "source_type": "other"},
                "metric_config": {"lower_is_better": False},
                "score_details": {
                    "score": right / 4,
                    "uncertainty": {"standard_error": {"value": 0.25, "method": "analytic"}},
                },
            }
        ],
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": f"data/letters/{developer}/{name}/{file_uuid}_samples.jsonl",
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(body).hexdigest(),
            "total_rows": len(order),
        },
    }
    path = folder / f"{file_uuid}.json"
    path.write_text(json.dumps(aggregate, indent=2))
    return path


def _sidecar(aggregate: Path) -> Path:
    doc = json.loads(aggregate.read_text())
    return aggregate.parent / Path(doc["detailed_evaluation_results"]["file_path"]).name


def test_records_map_into_trials_items_and_the_claim(tmp_path: Path) -> None:
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    res = run_audit("adapt-eee", agg, "--out", tmp_path / "out")
    assert res.code == 0, res.stderr
    trials = pl.read_parquet(tmp_path / "out" / "trials.parquet").sort("task")
    assert trials["task"].to_list() == list(TARGETS)
    assert trials["reward"].to_list() == [1.0, 0.0, 1.0, 1.0]
    assert trials["status"].unique().to_list() == ["scored"]
    [claim] = json.loads((tmp_path / "out" / "claim.json").read_text())["records"]
    assert claim["rows"] == 4
    assert claim["results"][0]["score"] == 0.75 and claim["results"][0]["standard_error"] == 0.25


def test_two_records_through_compare_items(tmp_path: Path) -> None:
    x = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    y = write_record(
        tmp_path, "acme/y", dict(zip(TARGETS, "BBAB", strict=True)), ["J04", "J02", "J03", "J01"]
    )
    for side, agg in (("x", x), ("y", y)):
        assert run_audit("adapt-eee", agg, "--out", tmp_path / side).code == 0
    res = run_audit(
        "compare-items",
        tmp_path / "x" / "items.parquet",
        tmp_path / "y" / "items.parquet",
        "--out",
        tmp_path / "cmp",
    )
    assert res.code == 0, res.stderr
    s = json.loads((tmp_path / "cmp" / "compare-items.json").read_text())
    assert s["first_boundary"]["output"] == 2 and s["first_boundary"]["none"] == 2
    assert (s["paired"]["only_a"], s["paired"]["only_b"], s["paired"]["both_right"]) == (1, 1, 2)


def _refused(tmp: Path, agg: Path, kind: str) -> None:
    res = run_audit("adapt-eee", agg, "--out", tmp / "out")
    assert res.code == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(f"error[{kind}]:"), res.stderr
    assert not (tmp / "out").exists()


def test_a_changed_sidecar_fails_its_checksum(tmp_path: Path) -> None:
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    side = _sidecar(agg)
    side.write_bytes(side.read_bytes().replace(b'"score": 0.0', b'"score": 1.0'))
    _refused(tmp_path, agg, "checksum_mismatch")


def test_a_row_count_other_than_declared_is_refused(tmp_path: Path) -> None:
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    doc = json.loads(agg.read_text())
    doc["detailed_evaluation_results"]["total_rows"] = 5
    agg.write_text(json.dumps(doc))
    _refused(tmp_path, agg, "row_count_mismatch")


def test_a_missing_sidecar_and_an_empty_one_are_refused(tmp_path: Path) -> None:
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    side = _sidecar(agg)
    side.unlink()
    _refused(tmp_path, agg, "missing_file")
    side.write_bytes(b"")
    doc = json.loads(agg.read_text())
    doc["detailed_evaluation_results"].update(
        checksum=hashlib.sha256(b"").hexdigest(), total_rows=0
    )
    agg.write_text(json.dumps(doc))
    _refused(tmp_path, agg, "empty")


def test_a_line_of_another_evaluation_is_refused(tmp_path: Path) -> None:
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    side = _sidecar(agg)
    lines = side.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["evaluation_id"] = "another"
    lines[1] = json.dumps(rec)
    body = ("\n".join(lines) + "\n").encode()
    side.write_bytes(body)
    doc = json.loads(agg.read_text())
    doc["detailed_evaluation_results"]["checksum"] = hashlib.sha256(body).hexdigest()
    agg.write_text(json.dumps(doc))
    _refused(tmp_path, agg, "bad_record")


def test_the_claim_is_a_leaderboard_the_trials_join_by_run(tmp_path: Path) -> None:
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    res = run_audit("adapt-eee", agg, "--out", tmp_path / "out")
    assert res.code == 0, res.stderr
    assert "1 record(s), 4 trial row(s) written" in res.stdout
    lb = pl.read_parquet(tmp_path / "out" / "leaderboard.parquet")
    trials = pl.read_parquet(tmp_path / "out" / "trials.parquet")
    eval_id = json.loads(agg.read_text())["evaluation_id"]
    # the run as the trials name it: <model_id>/<evaluation_id>/<evaluation_name>
    assert lb["run"].to_list() == [f"acme/x/{eval_id}/letters"]
    assert set(trials["run"]) == set(lb["run"])
    row = lb.row(0, named=True)
    assert (row["score"], row["standard_error"], row["rows_written"]) == (0.75, 0.25, 4)
    assert "FINDING" not in res.stdout


def test_a_result_counting_more_samples_than_the_record_holds_is_a_finding(
    tmp_path: Path,
) -> None:
    answers = dict(zip(TARGETS, "AAAB", strict=True))
    agg = write_record(tmp_path, "acme/x", answers, ["J01"])  # one instance row
    doc = json.loads(agg.read_text())
    doc["evaluation_results"][0]["score_details"]["uncertainty"]["num_samples"] = 79
    agg.write_text(json.dumps(doc))
    res = run_audit("adapt-eee", agg, "--out", tmp_path / "out")
    assert res.code == 0, res.stderr
    run = f"acme/x/{doc['evaluation_id']}/letters"
    assert f"FINDING {run}: the result counts 79 sample(s); the record holds 1" in res.stdout
    [rec] = json.loads((tmp_path / "out" / "claim.json").read_text())["records"]
    assert rec["results"][0]["finding"] == "the result counts 79 sample(s); the record holds 1"
    lb = pl.read_parquet(tmp_path / "out" / "leaderboard.parquet")
    assert lb.select("num_samples", "rows_written").row(0) == (79, 1)


def test_a_batch_lists_and_skips_a_record_without_its_sidecar(tmp_path: Path) -> None:
    good = write_record(
        tmp_path / "a", "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS)
    )
    bad = write_record(
        tmp_path / "b", "acme/y", dict(zip(TARGETS, "ABAB", strict=True)), list(TARGETS)
    )
    _sidecar(bad).unlink()
    res = run_audit("adapt-eee", bad, good, "--out", tmp_path / "out")
    assert res.code == 0, res.stderr
    assert "1 record(s), 4 trial row(s) written" in res.stdout
    assert f"    {bad}: error[missing_file]: {_sidecar(bad)}: " in res.stdout
    claim = json.loads((tmp_path / "out" / "claim.json").read_text())
    assert [s["file"] for s in claim["skipped"]] == [str(bad)]
    assert set(
        pl.read_parquet(tmp_path / "out" / "trials.parquet")["run"].str.starts_with("acme/x/")
    ) == {True}
    # all or nothing: the batch is refused, nothing written
    res = run_audit("adapt-eee", good, bad, "--all-or-nothing", "--out", tmp_path / "strict")
    assert res.code == 2 and res.stderr.startswith(f"error[missing_file]: {_sidecar(bad)}:")
    assert not (tmp_path / "strict").exists()


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_non_finite_score_is_refused(tmp_path: Path, literal: str) -> None:
    """JSON as Python reads it takes NaN, Infinity and a number past the largest double
    (1e400 -> inf); none is a reward (trials contract: a reward is a finite number)."""
    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    side = _sidecar(agg)
    body = side.read_bytes().replace(b'"score": 0.0', f'"score": {literal}'.encode(), 1)
    assert body != side.read_bytes()
    side.write_bytes(body)
    doc = json.loads(agg.read_text())
    doc["detailed_evaluation_results"]["checksum"] = hashlib.sha256(body).hexdigest()
    agg.write_text(json.dumps(doc))
    _refused(tmp_path, agg, "bad_type")


# Bounds (docs/refusals.md, "Bounds on what is read"): each file is read whole, so its
# size is judged first. The files past the bound are sparse (a size, no bytes), so the
# refusal is shown without writing a gigabyte; the bounds are the adapter's constants.


def test_an_aggregate_past_its_bound_is_refused_unread(tmp_path: Path) -> None:
    from audit.adapters.eee import MAX_AGGREGATE

    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    with agg.open("r+b") as f:
        f.truncate(MAX_AGGREGATE + 1)
    _refused(tmp_path, agg, "too_large")


def test_a_sidecar_past_its_bound_is_refused_before_its_checksum(tmp_path: Path) -> None:
    from audit.adapters.eee import MAX_SIDECAR

    agg = write_record(tmp_path, "acme/x", dict(zip(TARGETS, "AAAB", strict=True)), list(TARGETS))
    with _sidecar(agg).open("r+b") as f:
        f.truncate(MAX_SIDECAR + 1)
    _refused(tmp_path, agg, "too_large")


def test_an_aggregate_nested_past_the_parser_is_unreadable(tmp_path: Path) -> None:
    """A few hundred kilobytes of '[' exhaust the JSON parser's recursion: one line, not a
    traceback."""
    agg = tmp_path / "deep.json"
    agg.write_text("[" * 200_000)
    _refused(tmp_path, agg, "unreadable")


def test_a_fifo_named_as_the_aggregate_is_refused_without_hanging(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    res = run_audit("adapt-eee", fifo, "--out", tmp_path / "out", timeout=60)
    assert res.code == 2 and "not a regular file" in res.stderr, res.stderr
    assert res.stderr.count("\n") == 1 and not (tmp_path / "out").exists()
