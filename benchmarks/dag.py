"""Time the whole DAG on the real bundle against the single-process reference.

The reference (benchmarks/reference.py) is one process computing what the arm
answers: one contestant's census of the bundle with its 1,000 null draws, the
controls' predictions and perturbed bundles, that contestant's rerun of each
perturbed bundle and each control's check; there is one per contestant, and
the faster is the reference. Beside them, the floor, what the DAG cannot avoid:
starting each process it launches, with that process's imports, and nothing
else (summed, as if on one core); and each contestant alone (the census with
its draws, no controls). All are measured in the same run, interleaved, so the
ratios are meaningful on a noisy machine; the load average is printed before
and after. Targets: the whole DAG at most 3.0 times the reference, and at most
8 s (median) on 2 cores.

    uv run python benchmarks/dag.py [--reps 3] [--bundle DIR] [--before CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
UV = os.environ.get("UV", "uv")
PREREG = ROOT / "prereg/openhands-index.yaml"
TARGET = 8.0  # seconds, the whole DAG on 2 cores
TARGET_RATIO = 3.0  # the whole DAG over the single-process reference (medians)

# process kind -> a command that starts such a process with the imports it needs
FLOOR = {
    "snakemake start": [str(BIN / "snakemake"), "--version"],
    "referee (audit, controls)": [
        sys.executable,
        "-c",
        "import polars, blake3, yaml, jsonschema, audit.cells.census, controls",
    ],
    "impl_pandas": [
        str(ROOT / ".venvs/impl-pandas/bin/python"),
        "-c",
        "import pandas, numpy, fastparquet, yaml, blake3",
    ],
    "impl_pyarrow": [
        str(ROOT / ".venvs/impl-pyarrow/bin/python"),
        "-c",
        "import pyarrow, pyarrow.parquet, yaml, blake3",
    ],
    "uv sync (no-op)": [
        "env",
        "-u",
        "VIRTUAL_ENV",
        f"UV_PROJECT_ENVIRONMENT={ROOT}/.venvs/impl-pandas",
        UV,
        "sync",
        "--project",
        str(ROOT),
        "--frozen",
        "--only-group",
        "impl-pandas",
        "-q",
    ],
}


CONTESTANT_RULES = ("recompute", "controls_recompute")  # {impl}: one job per contestant


def kind_of(rule: str) -> str:
    if rule == "impl_env":
        return "uv sync (no-op)"
    return "referee (audit, controls)"


def snakemake_args(work: Path, bundle: Path, root: Path = ROOT) -> list[str]:
    return [
        str(BIN / "snakemake"),
        "--snakefile",
        str(root / "Snakefile"),
        "--directory",
        str(work),
        "--cores",
        "2",
        "--configfile",
        str(root / "config/openhands-index.yaml"),
        "--config",
        f"bundle={bundle}",
        f"prereg={root / PREREG.relative_to(ROOT)}",
    ]


def workdir() -> Path:
    work = Path(tempfile.mkdtemp(prefix="secondseat-bench-"))
    (work / "config").mkdir()
    shutil.copyfile(ROOT / "config/config.yaml", work / "config/config.yaml")
    return work


def run(cmd: list[str], root: Path = ROOT) -> subprocess.CompletedProcess:
    """``cmd`` with the packages of the checkout at ``root`` first on the path."""
    return subprocess.run(
        cmd,
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(root)),
    )


def timed(cmd: list[str], root: Path = ROOT) -> float:
    t0 = time.perf_counter()
    run(cmd, root)
    return time.perf_counter() - t0


def job_counts(bundle: Path) -> dict[str, int]:
    """Processes of each kind that one run of the DAG starts, from a dry run's job table."""
    work = workdir()
    try:
        out = run([*snakemake_args(work, bundle), "-n"]).stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = dict.fromkeys(FLOOR, 0)
    counts["snakemake start"] = 1
    for line in out.split("Job stats:")[1].splitlines()[3:]:
        parts = line.split()
        if not parts:
            break  # the table ends at a blank line
        if len(parts) == 2 and parts[1].isdigit() and parts[0] in CONTESTANT_RULES:
            counts["impl_pandas"] += int(parts[1]) // 2  # as many of each contestant
            counts["impl_pyarrow"] += int(parts[1]) // 2
        elif len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("all", "total"):
            counts[kind_of(parts[0])] += int(parts[1])
    return counts


def dag(bundle: Path, root: Path = ROOT) -> float:
    """The whole DAG from scratch, with the Snakefile of the checkout at ``root``."""
    work = workdir()
    try:
        return timed([*snakemake_args(work, bundle, root), "--quiet", "all"], root)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def alone(impl: str, bundle: Path) -> list[str]:
    """One contestant by itself: the census of the bundle, the prereg's null draws in-process."""
    out = Path(tempfile.gettempdir()) / f"secondseat-bench-alone-{impl}-{os.getpid()}"
    python = ROOT / f".venvs/impl-{impl}/bin/python"
    return [str(python), "-m", f"impl_{impl}", "--prereg", str(PREREG), "--bundle", str(bundle),
            "--out", str(out)]  # fmt: skip


ALONE = ("pandas", "pyarrow")


def reference(impl: str, bundle: Path) -> list[str]:
    """The single-process reference with ``impl`` (benchmarks/reference.py)."""
    out = Path(tempfile.gettempdir()) / f"secondseat-bench-reference-{impl}-{os.getpid()}"
    return [sys.executable, str(ROOT / "benchmarks/reference.py"), "--impl", impl,
            "--prereg", str(PREREG), "--bundle", str(bundle), "--out", str(out)]  # fmt: skip


def timed_reference(impl: str, bundle: Path) -> float:
    cmd = reference(impl, bundle)
    shutil.rmtree(cmd[-1], ignore_errors=True)  # from scratch, as the DAG
    try:
        return timed(cmd)
    finally:
        shutil.rmtree(cmd[-1], ignore_errors=True)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bundle", default=str(ROOT.parent / "shared/bundles/openhands-index-3015ac6"))
    ap.add_argument(
        "--before",
        help="another checkout of this repository (the code before a change): its whole DAG"
        " timed in the same run, interleaved",
    )
    args = ap.parse_args()
    before = Path(args.before).resolve() if args.before else None
    bundle = Path(args.bundle).resolve()
    counts = job_counts(bundle)
    dag(bundle)  # warm-up: environments synced, caches filled
    if before:
        dag(bundle, before)
    dag_times: list[float] = []
    before_times: list[float] = []
    floor_times: dict[str, list[float]] = {k: [] for k in FLOOR}
    alone_times: dict[str, list[float]] = {impl: [] for impl in ALONE}
    ref_times: dict[str, list[float]] = {impl: [] for impl in ALONE}
    for impl in ALONE:
        timed_reference(impl, bundle)  # warm-up
    load_before = load()
    for _ in range(args.reps):
        for kind, cmd in FLOOR.items():
            floor_times[kind].append(timed(cmd))
        for impl in ALONE:
            alone_times[impl].append(timed(alone(impl, bundle)))
        for impl in ALONE:
            ref_times[impl].append(timed_reference(impl, bundle))
        dag_times.append(dag(bundle))
        if before:
            before_times.append(dag(bundle, before))
    load_after = load()
    for impl in ALONE:
        shutil.rmtree(alone(impl, bundle)[-1], ignore_errors=True)
    print(f"whole DAG on {bundle.name}, {args.reps} runs, 2 cores (seconds)")
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
    print(f"{'':34}{'min':>8}{'median':>8}{'max':>8}")
    med = statistics.median
    print(f"{'whole DAG':34}{min(dag_times):8.2f}{med(dag_times):8.2f}{max(dag_times):8.2f}")
    if before:
        ts = before_times
        print(f"{'whole DAG, --before':34}{min(ts):8.2f}{med(ts):8.2f}{max(ts):8.2f}")
        print(f"ratio DAG / DAG before (medians, same run): {med(dag_times) / med(ts):.2f}")
    floor = 0.0
    for kind, ts in floor_times.items():
        floor += counts[kind] * med(ts)
        label = f"{kind} x{counts[kind]}"
        print(f"{label:34}{min(ts):8.2f}{med(ts):8.2f}{max(ts):8.2f}  (each)")
    print(f"{'process-start floor (sum)':34}{'':8}{floor:8.2f}")
    print(f"ratio DAG / floor (medians, same run): {med(dag_times) / floor:.2f}")
    for impl in ALONE:
        ts = alone_times[impl]
        label = f"impl_{impl} alone, 1 process"
        print(f"{label:34}{min(ts):8.2f}{med(ts):8.2f}{max(ts):8.2f}")
        print(f"ratio DAG / impl_{impl} alone (medians, same run): {med(dag_times) / med(ts):.2f}")
    for impl in ALONE:
        ts = ref_times[impl]
        label = f"reference, impl_{impl}, 1 process"
        print(f"{label:34}{min(ts):8.2f}{med(ts):8.2f}{max(ts):8.2f}")
        print(f"ratio DAG / reference with impl_{impl} (medians, same run): "
              f"{med(dag_times) / med(ts):.2f}")  # fmt: skip
    ratio = med(dag_times) / min(med(ts) for ts in ref_times.values())
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    print(f"target: whole DAG <= {TARGET_RATIO:.1f} x the faster reference: {ratio:.2f}, {verdict}")
    verdict = "met" if med(dag_times) <= TARGET else "NOT met"
    print(f"target: whole DAG <= {TARGET:.0f} s (median): {verdict}")


if __name__ == "__main__":
    main()
