"""Time the controls' choice of targets that preflight makes before the lock.

For each shipped arm with controls (its prereg and the bundle its config names), in
one process that has imported polars already (the workflow's preflight does):

- a leaderboard arm: the checks of the bundle before the lock
  (audit/preflight.py check_before_lock), then the controls' targets chosen on the
  shipped bundle (check_control_targets: the instance table read as the prediction
  job reads it, each control's row and instances chosen);
- a trials arm: the checks of its tables (audit/trials/preflight_source.py), then the
  whole of audit/preflight.py check_trials_before_lock (the same checks, then each
  control predicted from the table judged there); the difference is the controls'.

The first call (with the imports) and the median of the next REPS; the load average
before and after: on a shared machine the figures move with it.

    uv run python benchmarks/preflight_controls.py [--reps 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARMS = ("openhands-index", "benchflow-sample", "skillsbench-registry")


def _timed(reps: int, call, *args) -> tuple[float, float]:
    times = []
    for _ in range(1 + reps):
        start = time.perf_counter()
        call(*args)
        times.append(time.perf_counter() - start)
    return times[0], statistics.median(times[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import polars  # noqa: F401 - imported by the workflow's preflight before this check
    import yaml

    from audit import preflight
    from audit.kinds.arm_kind import load_checked
    from audit.trials.preflight_source import check_before_lock as check_tables

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for arm in ARMS:
        config = yaml.safe_load((ROOT / "config" / f"{arm}.yaml").read_text(encoding="utf-8"))
        bundle = str((ROOT / config["bundle"]).resolve())
        prereg = str(ROOT / config["prereg"])
        if not Path(bundle).is_dir():
            print(f"{arm}: {bundle} not present, skipped")
            continue
        kind, doc = load_checked(prereg)
        rec = kind.entry("parse")(doc, prereg)  # the record the workflow parses once
        if kind.name == "trials":
            tables = _timed(args.reps, check_tables, rec, bundle)
            both = _timed(args.reps, preflight.check_trials_before_lock, rec, bundle)
            print(
                f"{arm}: tables first {tables[0]:.3f} s, median {tables[1]:.3f} s; tables and"
                f" controls first {both[0]:.3f} s, median {both[1]:.3f} s"
            )
            continue
        checks = _timed(args.reps, preflight.check_before_lock, kind, rec, prereg, bundle)
        targets = _timed(args.reps, preflight.check_control_targets, kind, rec, bundle)
        print(
            f"{arm}: checks before the lock first {checks[0]:.3f} s, median {checks[1]:.3f} s;"
            f" controls' targets first {targets[0]:.3f} s, median {targets[1]:.3f} s"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
