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

Refused: a missing or unreadable sidecar, a checksum or row count that differs
(``checksum_mismatch``, ``row_count_mismatch``), a line without a required field or of
another evaluation or model (``bad_record``), a (sample, evaluation) twice
(``duplicate_key``), and an empty result (``empty``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from audit.bundles import intake_out
from audit.errors import AuditError
from audit.files import file_blake3
from audit.trials.adapter import SCHEMA as TRIAL_SCHEMA

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


def _json(path: Path) -> Any:
    if not path.is_file():
        raise AuditError("missing_file", str(path), "no such file")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
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
    if not path.is_file():
        raise AuditError("missing_file", str(path), "the instance-level file is not there")
    raw = path.read_bytes()
    got = hashlib.new(detail["hash_algorithm"], raw).hexdigest()
    if got != detail["checksum"].lower():
        raise AuditError(
            "checksum_mismatch",
            str(path),
            f"{detail['hash_algorithm']} is {got}, the aggregate declares {detail['checksum']}",
        )
    try:
        lines = [json.loads(x) for x in raw.decode("utf-8").splitlines() if x.strip()]
    except (json.JSONDecodeError, UnicodeDecodeError):
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
        "results": [
            {
                "evaluation_name": r.get("evaluation_name"),
                "evaluation_result_id": r.get("evaluation_result_id"),
                "score": (r.get("score_details") or {}).get("score"),
                "standard_error": (
                    ((r.get("score_details") or {}).get("uncertainty") or {}).get("standard_error")
                    or {}
                ).get("value"),
            }
            for r in doc.get("evaluation_results") or []
        ],
    }
    return trials, items, claim


def adapt_to(aggregates: list[str], out: str) -> dict[str, Any]:
    trials: list[dict] = []
    items: list[dict] = []
    claims: list[dict] = []
    for path in aggregates:
        t, i, c = read(path)
        trials += t
        items += i
        claims.append(c)
    return intake_out.write(out, trials, items, {"format": "every-eval-ever", "records": claims})
