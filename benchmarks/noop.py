"""Time a no-op rerun of a complete run on the real bundle against Snakemake's own start.

The no-op rerun is the README's command, run again in the repository after a
complete run: Snakemake must find nothing to do. Its floor is Snakemake
starting and stopping (``snakemake --version``, with and without ``uv run``),
measured in the same run, interleaved, so the figures compare on a noisy
machine. Target: the no-op rerun takes at most 2 s.

    uv run python benchmarks/noop.py [--reps 5] [--bundle DIR]

The first call of the command completes the run if it is not complete (the
whole DAG: minutes); it is not timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
UV = os.environ.get("UV", "uv")
TARGET = 2.0  # seconds


def rerun(bundle: str) -> list[str]:
    """The README's command for the real bundle, as a user types it in the repository."""
    return [
        UV,
        "run",
        "snakemake",
        "--cores",
        "2",
        "--configfile",
        "config/openhands-index.yaml",
        "--config",
        f"bundle={bundle}",
    ]


FLOOR = {
    "snakemake --version": [str(BIN / "snakemake"), "--version"],
    "uv run snakemake --version": [UV, "run", "snakemake", "--version"],
}


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, cwd=ROOT, check=False, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(
            f"{' '.join(cmd)} ended with exit {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}"
        )
    return p


def timed(cmd: list[str], must_say: str | None = None) -> float:
    t0 = time.perf_counter()
    p = run(cmd)
    t = time.perf_counter() - t0
    if must_say is not None and must_say not in p.stdout + p.stderr:
        sys.exit(f"{' '.join(cmd)} did not say {must_say!r}: not a no-op\n{p.stderr[-2000:]}")
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--bundle", default="../shared/bundles/openhands-index-3015ac6")
    args = ap.parse_args()
    run(rerun(args.bundle))  # complete the run (untimed); a no-op if it is complete
    times: dict[str, list[float]] = {"no-op rerun": [], **{k: [] for k in FLOOR}}
    for _ in range(args.reps):
        times["no-op rerun"].append(timed(rerun(args.bundle), must_say="Nothing to be done"))
        for kind, cmd in FLOOR.items():
            times[kind].append(timed(cmd))
    med = statistics.median
    print(f"whole-process seconds, {args.reps} runs each, interleaved, in {ROOT.name}/")
    print(f"  no-op rerun: {' '.join(['uv', *rerun(args.bundle)[1:]])}")
    print(f"{'':30}{'min':>8}{'median':>8}{'max':>8}")
    for kind, ts in times.items():
        print(f"{kind:30}{min(ts):8.2f}{med(ts):8.2f}{max(ts):8.2f}")
    noop, floor = med(times["no-op rerun"]), med(times["snakemake --version"])
    print(f"no-op rerun - snakemake --version (medians): {noop - floor:.2f} s")
    print(f"target: no-op rerun <= {TARGET:.1f} s: {'met' if noop <= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
