"""Resolved trials per tb run of the Terminal-Bench sample, counted from the runs' own
records (the figures tests/test_rounding_csv.py pins), apart from the adapter.

A tb run is a folder whose results.json is an object holding a `results` list, or a
`<name>_results.json` directly in the submission folder (a run shipped as one file).
A run found inside another run's folder is a copy and is read once (the outer one).
Each element of `results` is one trial: `is_resolved` true, false or null.

    python -m tests.reference.tb_counts ../shared/bundles/terminal-bench-sample/results
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    name: str
    trials: int
    resolved: int
    null: int


def _results(path: Path) -> list | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):
        return doc["results"]
    return None


def runs_of(submission: Path) -> list[Run]:
    found: dict[str, list] = {}
    for f in sorted(submission.glob("*_results.json")):
        got = _results(f)
        if got is not None:
            found[f.name.removesuffix("_results.json")] = got
    run_dirs = sorted(p.parent for p in submission.rglob("results.json") if _results(p) is not None)
    for d in run_dirs:
        if any(o != d and o in d.parents for o in run_dirs):
            continue  # nested inside another run: its copy, read once
        found[str(d.relative_to(submission))] = _results(d / "results.json") or []
    return [
        Run(
            name,
            len(trials),
            sum(t.get("is_resolved") is True for t in trials),
            sum(t.get("is_resolved") is None for t in trials),
        )
        for name, trials in sorted(found.items())
    ]


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        for run in runs_of(sub):
            print(f"{sub.name} {run.name}: {run.resolved} of {run.trials}, {run.null} null")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
