"""Time the checks a trials arm's run makes of its tables before the lock.

For each shipped trials arm (its prereg and the bundle its config names), the
check the workflow runs as it is read (audit/trials/preflight_source.py:
the leaderboard and the registry table, or the adapter run in memory on the
jobs folder and its table judged, then compare-runs' refusals): the first call
(with the adapter's imports) and the median of the next REPS, in one process
that has imported polars already (the workflow's preflight does, before it).
The load average is printed before and after: on a shared machine the figures
move with it.

    uv run python benchmarks/preflight_trials.py [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARMS = ("benchflow-sample", "skillsbench-registry", "terminal-bench-sample")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    import polars  # noqa: F401 - imported by the workflow's preflight before this check
    import yaml

    from audit.files import regular_files
    from audit.kinds.arm_kind import load_checked
    from audit.trials.preflight_source import check_before_lock
    from audit.trials.record import parse

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for arm in ARMS:
        config = yaml.safe_load((ROOT / "config" / f"{arm}.yaml").read_text(encoding="utf-8"))
        bundle = str((ROOT / config["bundle"]).resolve())
        prereg = str(ROOT / config["prereg"])
        if not Path(bundle).is_dir():
            print(f"{arm}: {bundle} not present, skipped")
            continue
        _, doc = load_checked(prereg)
        rec = parse(doc, prereg)
        jobs = rec.source.jobs
        size = (
            sum(Path(bundle, jobs, r).stat().st_size for r in regular_files(Path(bundle, jobs)))
            if jobs
            else 0
        )
        times = []
        for _ in range(1 + args.reps):
            start = time.perf_counter()
            check_before_lock(rec, bundle)
            times.append(time.perf_counter() - start)
        print(
            f"{arm}: jobs folder {size / 1e6:.1f} MB; first {times[0]:.3f} s,"
            f" median of {args.reps} {statistics.median(times[1:]):.3f} s"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
