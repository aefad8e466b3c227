"""Time the whole DAG on the real bundle against its process-start floor.

The floor is what the DAG cannot avoid: starting each process it launches,
with that process's imports, and nothing else. Both are measured in the same
run, interleaved, so the ratio is meaningful on a noisy machine.

    uv run python benchmarks/dag.py [--reps 3] [--bundle DIR]
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

# process kind -> (command, how many of them one DAG run starts)
FLOOR = {
    "snakemake start": ([str(BIN / "snakemake"), "--version"], 1),
    "referee (python -m audit)": (
        [sys.executable, "-c", "import polars, blake3, yaml, jsonschema, audit.census"],
        6,
    ),
    "impl_pandas": (
        [
            str(ROOT / ".venvs/impl-pandas/bin/python"),
            "-c",
            "import pandas, numpy, fastparquet, yaml, blake3",
        ],
        2,
    ),
    "impl_pyarrow": (
        [
            str(ROOT / ".venvs/impl-pyarrow/bin/python"),
            "-c",
            "import pyarrow, pyarrow.parquet, yaml, blake3",
        ],
        2,
    ),
    "uv sync (no-op)": (
        [
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
        2,
    ),
}


def timed(cmd: list[str], cwd: Path = ROOT) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        cmd, cwd=cwd, check=True, capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT))
    )
    return time.perf_counter() - t0


def dag(bundle: Path) -> float:
    work = Path(tempfile.mkdtemp(prefix="secondseat-bench-"))
    try:
        (work / "config").mkdir()
        shutil.copyfile(ROOT / "config/config.yaml", work / "config/config.yaml")
        return timed(
            [
                str(BIN / "snakemake"),
                "--snakefile",
                str(ROOT / "Snakefile"),
                "--directory",
                str(work),
                "--cores",
                "2",
                "--quiet",
                "all",
                "--configfile",
                str(ROOT / "config/openhands-index.yaml"),
                "--config",
                f"bundle={bundle}",
                f"prereg={ROOT}/prereg/openhands-index.yaml",
            ]
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bundle", default=str(ROOT.parent / "shared/bundles/openhands-index-3015ac6"))
    args = ap.parse_args()
    bundle = Path(args.bundle).resolve()
    dag(bundle)  # warm-up: environments synced, caches filled
    dag_times: list[float] = []
    floor_times: dict[str, list[float]] = {k: [] for k in FLOOR}
    for _ in range(args.reps):
        for kind, (cmd, _n) in FLOOR.items():
            floor_times[kind].append(timed(cmd))
        dag_times.append(dag(bundle))
    print(f"whole DAG on {bundle.name}, {args.reps} runs, 2 cores (seconds)")
    print(f"{'':30}{'min':>8}{'median':>8}{'max':>8}")
    print(
        f"{'whole DAG':30}{min(dag_times):8.2f}{statistics.median(dag_times):8.2f}{max(dag_times):8.2f}"
    )
    floor = 0.0
    for kind, (_cmd, n) in FLOOR.items():
        ts = floor_times[kind]
        med = statistics.median(ts)
        floor += n * med
        print(f"{kind + f' x{n}':30}{min(ts):8.2f}{med:8.2f}{max(ts):8.2f}")
    med_dag = statistics.median(dag_times)
    print(f"{'process-start floor (sum)':30}{'':8}{floor:8.2f}")
    print(f"ratio DAG / floor (medians): {med_dag / floor:.2f}")


if __name__ == "__main__":
    main()
