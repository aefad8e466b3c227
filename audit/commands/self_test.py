"""Inject the fault catalogue into the contestants and record which stage flags each
(docs/self-test.md). Exit 1 when a fault is not caught as the catalogue expects."""

from __future__ import annotations

import argparse
import sys

HELP = "inject the fault catalogue into the contestants"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--bundles",
        nargs="+",
        default=["demo", "demo-edges"],
        help="demo, demo-edges, openhands-index, skillsbench-registry, benchflow-sample",
    )
    p.add_argument("--shared", default="../shared/bundles", help="where the real bundles live")
    p.add_argument("--faults", nargs="*", default=None, help="only these faults")
    p.add_argument(
        "--catalogue", default=None, help="the fault catalogue (audit/selftest/faults.yaml)"
    )
    p.add_argument("--jobs", type=int, default=2, help="faults run at once (default 2)")
    p.add_argument("--out", required=True, help="folder for self-test.md and self-test.csv")


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from audit.selftest.catalogue import CATALOGUE
    from audit.selftest.matrix import problems, verdicts, write_csv, write_md
    from audit.selftest.run import self_test

    start = time.monotonic()
    faults, outcomes, names = self_test(
        args.bundles,
        Path(args.shared),
        args.jobs,
        Path(args.catalogue) if args.catalogue else CATALOGUE,
        only=args.faults,
    )
    out = Path(args.out)
    write_csv(outcomes, out / "self-test.csv")
    write_md(faults, outcomes, names, out / "self-test.md", time.monotonic() - start)
    v = verdicts(faults, outcomes)
    print(
        f"self-test: {len(faults)} faults, "
        + ", ".join(f"{sum(x == k for x in v.values())} {k}" for k in sorted(set(v.values())))
        + f"; {out / 'self-test.md'}"
    )
    bad = problems(faults, outcomes)
    for line in bad:
        print(f"FAILED: {line}", file=sys.stderr)
    return 1 if bad else 0
