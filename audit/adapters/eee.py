"""Every Eval Ever records (the EvalEval Coalition's schema) into the trials contract.

``python -m audit adapt-eee AGGREGATE.json... --out DIR``. An aggregate record
(``eval.schema.json``) names its instance-level sidecar in
``detailed_evaluation_results`` (``format: jsonl``, ``file_path``
``data/<collection>/<developer>/<model>/<uuid>_samples.jsonl``, ``hash_algorithm``,
``checksum``, ``total_rows``). The sidecar is looked for beside the aggregate (the
datastore keeps both in one folder). Before anything is mapped, the sidecar's bytes
must have the declared checksum (sha256 or md5 of the file as it is) and its lines
the declared count; each line must carry the required fields of
``instance_level_eval.schema.json`` and the aggregate's ``evaluation_id`` and model id.

Written: ``trials.parquet`` (trials v1, docs/trials-contract.md: one row per line;
``run`` ``<model_id>/<evaluation_id>/<evaluation_name>``, ``task`` the ``sample_id``,
``reward`` ``evaluation.score``, ``status`` scored), ``items.parquet`` (the per-item
record of ``compare-items``: ``input`` ``input.raw``, ``prompt`` ``input.formatted``,
``output`` ``output.raw`` as JSON, ``answer`` the terminal ``extracted_value``, ``score``
1/0 from ``evaluation.is_correct``, ``target`` ``input.reference`` as JSON) and
``claim.json`` (each aggregate result's ``score_details``: score and standard error).

``leaderboard.parquet`` is the published claim, one row per aggregate result keyed by
``run`` (the trial rows join it by the same column): its score, standard error, the
samples it counts (``uncertainty.num_samples``) and the rows written for its run. A
result counting more samples than the record holds, or whose run has no row, is a
finding printed with both counts (``claim.json``, ``finding``). In a batch, a record
that cannot be read (``missing_file``: the aggregate or its sidecar absent;
``unreadable``) is listed with its reason and skipped, unless ``--all-or-nothing``.

Refused: a missing or unreadable sidecar, a checksum or row count that differs
(``checksum_mismatch``, ``row_count_mismatch``), a line without a required field or of
another evaluation or model (``bad_record``), a (sample, evaluation) twice
(``duplicate_key``), and an empty result (``empty``).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import polars as pl

from audit.adapters import intake_out
from audit.adapters.base import SCHEMA as TRIAL_SCHEMA
from audit.errors import AuditError
from audit.files import file_blake3, read_regular

FORMAT = "every-eval-ever"
REQUIRED = (
    "schema_version",
    "evaluation_id",
    "model_id",
    "evaluation_name",
    "sample_id",
    "interaction_type",
    "input",
    "answer_attribution",
    "evaluation",
)


# Bounds on what a record may make the reader hold (docs/intake.md, docs/refusals.md):
# each file is read whole, so its size is checked first (too_large), never read past.
MAX_AGGREGATE = 64 << 20  # an aggregate record: a few kilobytes in the datastore
MAX_SIDECAR = 1 << 30  # its instance-level JSONL


def _json(path: Path) -> Any:
    raw = read_regular(path, MAX_AGGREGATE, "too_large")  # missing_file when absent
    try:
        return json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise AuditError("unreadable", str(path), "not JSON") from None


def sidecar(aggregate: Path, doc: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    detail = doc.get("detailed_evaluation_results")
    if not isinstance(detail, dict):
        raise AuditError("bad_record", str(aggregate), "no detailed_evaluation_results")
    if detail.get("format") != "jsonl" or not isinstance(detail.get("file_path"), str):
        raise AuditError("bad_record", str(aggregate), "detailed results are not a jsonl file")
    for key, kind in (("checksum", str), ("total_rows", int), ("hash_algorithm", str)):
        if not isinstance(detail.get(key), kind) or isinstance(detail.get(key), bool):
            raise AuditError("bad_record", str(aggregate), f"detailed results have no {key}")
    if detail["hash_algorithm"] not in ("sha256", "md5"):
        raise AuditError("bad_record", str(aggregate), f"hash {detail['hash_algorithm']!r}")
    return aggregate.parent / Path(detail["file_path"]).name, detail


def check_sidecar(path: Path, detail: dict[str, Any]) -> list[dict[str, Any]]:
    """The sidecar's records, once its checksum and row count are the declared ones."""
    if not path.exists():
        raise AuditError("missing_file", str(path), "the instance-level file is not there")
    raw = read_regular(path, MAX_SIDECAR, "too_large")
    got = hashlib.new(detail["hash_algorithm"], raw).hexdigest()
    if got != detail["checksum"].lower():
        raise AuditError(
            "checksum_mismatch",
            str(path),
            f"{detail['hash_algorithm']} is {got}, the aggregate declares {detail['checksum']}",
        )
    try:
        lines = [json.loads(x) for x in raw.decode("utf-8").splitlines() if x.strip()]
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise AuditError("unreadable", str(path), "a line is not JSON") from None
    if len(lines) != detail["total_rows"]:
        raise AuditError(
            "row_count_mismatch",
            str(path),
            f"{len(lines)} row(s), the aggregate declares total_rows {detail['total_rows']}",
        )
    return lines


def _terminal_answer(rec: dict[str, Any]) -> str | None:
    attributions = rec.get("answer_attribution") or []
    terminal = [a for a in attributions if isinstance(a, dict) and a.get("is_terminal")]
    pick = terminal[-1] if terminal else (attributions[-1] if attributions else None)
    return pick.get("extracted_value") if isinstance(pick, dict) else None


def read(aggregate: str) -> tuple[list[dict], list[dict], dict[str, Any]]:
    agg = Path(aggregate)
    doc = _json(agg)
    if not isinstance(doc, dict) or not isinstance(doc.get("evaluation_id"), str):
        raise AuditError("bad_record", aggregate, "not an aggregate record (no evaluation_id)")
    model = (doc.get("model_info") or {}).get("id")
    path, detail = sidecar(agg, doc)
    records = check_sidecar(path, detail)
    if not records:
        raise AuditError("empty", str(path), "no instance record")
    trials: list[dict] = []
    items: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for n, rec in enumerate(records, start=1):
        where = f"{path}:{n}"
        missing = [k for k in REQUIRED if k not in rec]
        if missing:
            raise AuditError("bad_record", where, f"no {', '.join(missing)}")
        if rec["evaluation_id"] != doc["evaluation_id"] or rec["model_id"] != model:
            raise AuditError("bad_record", where, "of another evaluation_id or model_id")
        ev = rec["evaluation"]
        score = ev.get("score") if isinstance(ev, dict) else None
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise AuditError("bad_type", where, "evaluation.score is not a number")
        if not math.isfinite(score):  # NaN, Infinity, or a literal past the largest double
            raise AuditError("bad_type", where, f"evaluation.score is {score}, not a finite number")
        key = (str(rec["sample_id"]), str(rec["evaluation_name"]))
        if key in seen:
            raise AuditError("duplicate_key", where, f"sample {key[0]} of {key[1]} twice")
        seen.add(key)
        run = f"{model}/{doc['evaluation_id']}/{key[1]}"
        trials.append(
            {
                **dict.fromkeys(TRIAL_SCHEMA),
                "run": run,
                "task": key[0],
                "trial_id": f"{doc['evaluation_id']}/{key[1]}/{key[0]}",
                "copy": 0,
                "folder": f"{path.name}:{n}",
                "status": "scored",
                "reward": float(score),
                "reward_keys": "score",
                "exception": False,
                "verifier_ran": True,
                "config_source": "none",
                # the format records no verifier warning: none is flagged broken
                "verifier_broken": False,
            }
        )
        inp = rec["input"] if isinstance(rec["input"], dict) else {}
        out = rec.get("output") if isinstance(rec.get("output"), dict) else {}
        correct = ev.get("is_correct")
        items.append(
            {
                "item_id": key[0],
                "run": run,
                "epoch": 1,
                "input": inp.get("raw"),
                "prompt": inp.get("formatted"),
                "output": None if out.get("raw") is None else json.dumps(out["raw"]),
                "answer": _terminal_answer(rec),
                "score": None if not isinstance(correct, bool) else float(correct),
                "target": None if inp.get("reference") is None else json.dumps(inp["reference"]),
            }
        )
    claim = {
        "file": agg.name,
        "blake3": file_blake3(agg),
        "sidecar": path.name,
        "evaluation_id": doc["evaluation_id"],
        "model_id": model,
        "rows": len(records),
        "results": [_result(r, model, doc["evaluation_id"], trials) for r in _results(doc)],
    }
    return trials, items, claim


def _results(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in doc.get("evaluation_results") or [] if isinstance(r, dict)]


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _result(r: dict[str, Any], model: Any, evaluation_id: str, trials: list[dict]) -> dict:
    """One published result, the rows written for its run, and the finding when the
    result counts more samples than the record holds."""
    details = r.get("score_details") if isinstance(r.get("score_details"), dict) else {}
    unc = details.get("uncertainty") if isinstance(details.get("uncertainty"), dict) else {}
    se = unc.get("standard_error") if isinstance(unc.get("standard_error"), dict) else {}
    run = f"{model}/{evaluation_id}/{r.get('evaluation_name')}"
    rows = sum(1 for t in trials if t["run"] == run)
    claimed = unc.get("num_samples")
    claimed = claimed if isinstance(claimed, int) and not isinstance(claimed, bool) else None
    return {
        "run": run,
        "evaluation_name": r.get("evaluation_name"),
        "evaluation_result_id": r.get("evaluation_result_id"),
        "score": details.get("score"),
        "standard_error": se.get("value"),
        "num_samples": claimed,
        "rows": rows,
        "finding": (
            f"the result counts {claimed} sample(s); the record holds {rows}"
            if claimed is not None and rows < claimed
            else f"no instance row of this result's run ({run})"
            if rows == 0
            else None
        ),
    }


LEADERBOARD = {
    "run": pl.String,
    "evaluation_id": pl.String,
    "model_id": pl.String,
    "evaluation_name": pl.String,
    "evaluation_result_id": pl.String,
    "score": pl.Float64,
    "standard_error": pl.Float64,
    "num_samples": pl.Int64,
    "rows_written": pl.Int64,
}


def leaderboard(claims: list[dict[str, Any]]) -> pl.DataFrame:
    """The published claim, one row per result keyed by ``run`` (the trials' run)."""
    rows = [
        {
            "run": r["run"],
            "evaluation_id": c["evaluation_id"],
            "model_id": None if c["model_id"] is None else str(c["model_id"]),
            "evaluation_name": None if r["evaluation_name"] is None else str(r["evaluation_name"]),
            "evaluation_result_id": (
                None if r["evaluation_result_id"] is None else str(r["evaluation_result_id"])
            ),
            "score": _number(r["score"]),
            "standard_error": _number(r["standard_error"]),
            "num_samples": r["num_samples"],
            "rows_written": r["rows"],
        }
        for c in claims
        for r in c["results"]
    ]
    return pl.DataFrame(rows, schema=LEADERBOARD)


def adapt_to(aggregates: list[str], out: str, all_or_nothing: bool = False) -> dict[str, Any]:
    read_records, skipped = intake_out.batch(aggregates, read, all_or_nothing)
    trials: list[dict] = []
    items: list[dict] = []
    claims: list[dict] = []
    for _, (t, i, c) in read_records:
        trials += t
        items += i
        claims.append(c)
    doc = {"format": FORMAT, "records": claims, "skipped": skipped, "key": "run"}
    return intake_out.write(out, trials, items, doc, leaderboard(claims))


def summary_lines(doc: dict[str, Any]) -> list[str]:
    lines = [
        f"adapt-eee: {len(doc['records'])} record(s), "
        f"{sum(c['rows'] for c in doc['records'])} trial row(s) written"
    ]
    for c in doc["records"]:
        lines.append(f"  {c['evaluation_id']}: {c['rows']} row(s), checksum and row count hold")
        for r in c["results"]:
            lines.append(f"    {r['run']}: {r['rows']} row(s); published score {r['score']}")
            if r["finding"]:
                lines.append(f"    FINDING {r['run']}: {r['finding']}")
    return lines + intake_out.skipped_lines(doc["skipped"])
