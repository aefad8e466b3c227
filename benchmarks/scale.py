"""Scale: the whole DAG on synthetic bundles of 40k, 1M and 10M instance rows.

For each size: write the bundle (``python -m audit generate``, kept in a cache
folder), run the whole DAG in a temporary working directory as
``tests/test_pipeline.py`` does, with every job's shell wrapped so that its wall
time and peak RSS are recorded (the wrapper is a ``bash`` first on PATH that
runs the real bash and reads the child's rusage), then, alone and back to
back, each contestant on the same bundle and the physical reference: a polars
lazy scan + group-by of the same instance file (the fastest known way to read
it and aggregate it). Then the ratios, and the growth exponent between the two
largest sizes: b in time ~ rows^b, from log(t2 / t1) / log(rows2 / rows1).

    uv run python benchmarks/scale.py [--sizes 40k,1m,10m] [--models 40] [--seed 1]
        [--cache DIR] [--json FILE] [--spine]

Peak RSS is ru_maxrss of the job's process tree (the largest process in it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SIZES = {"40k": 40_000, "1m": 1_000_000, "10m": 10_000_000}
CONFIG = ROOT / "config" / "synthetic.yaml"
PREREG = ROOT / "prereg" / "synthetic.yaml"

# A `bash` that runs the real one and appends {cmd, wall, maxrss_kb, user, sys} to a log.
WRAPPER = """#!{python} -S
import json, os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv({bash!r}, ["bash", *sys.argv[1:]])
_, status, ru = os.wait4(pid, 0)
line = json.dumps({{
    "cmd": sys.argv[-1], "wall": time.perf_counter() - t0, "maxrss_kb": ru.ru_maxrss,
    "user": ru.ru_utime, "sys": ru.ru_stime,
}})
fd = os.open(os.environ["SECONDSEAT_JOBLOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
os.write(fd, (line + "\\n").encode())
os.close(fd)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""

REFERENCE = """
import sys, time
t0 = time.perf_counter()
import polars as pl
t1 = time.perf_counter()
out = (
    pl.scan_parquet(sys.argv[1])
    .group_by("id", "category")
    .agg(
        pl.len(),
        pl.col("resolved").sum().alias("k"),
        pl.col("resolved").count().alias("n_valid"),
        pl.col("cost").sum().alias("cost_sum"),
        pl.col("cost").count().alias("n_cost"),
        pl.col("language_model").n_unique().alias("models"),
    )
    .collect()
)
print(f"{t1 - t0} {time.perf_counter() - t1} {out.height}")
"""


def measured(cmd: list[str], env: dict | None = None, cwd: Path = ROOT) -> dict:
    """Run a command; its wall time, peak RSS (MB), CPU time, stdout. Fails loudly."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err[-3000:]}")
    return {
        "wall": wall,
        "rss_mb": ru.ru_maxrss / 1024,
        "cpu": ru.ru_utime + ru.ru_stime,
        "stdout": out,
    }


def env_with(**extra: str) -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT), **extra)


def bundle(cache: Path, label: str, rows: int, models: int, seed: int) -> tuple[Path, dict]:
    """The synthetic bundle of one size (written once per cache folder)."""
    out = cache / f"{label}-m{models}-s{seed}"
    if (out / "planted.csv").is_file():
        return out, {"cached": True}
    cmd = [sys.executable, "-m", "audit", "generate", "--rows", str(rows)]
    cmd += ["--models", str(models), "--seed", str(seed), "--out", str(out)]
    return out, {"cached": False, **measured(cmd, env_with())}


def label_of(cmd: str) -> str:
    """A job's kind, from its shell command."""
    if m := re.search(r"-m impl_(pandas|pyarrow) (null-draws|null-merge)\b", cmd):
        return f"{m.group(1)} {m.group(2)}"
    if m := re.search(r"-m impl_(pandas|pyarrow)\b", cmd):
        return f"{m.group(1)} ({'control rerun' if '/controls/' in cmd else 'recompute'})"
    if m := re.search(r"-m (audit|controls) ([\w-]+)", cmd):
        return f"{m.group(1)} {m.group(2)}"
    if " sync " in cmd:
        return "impl_env (uv sync)"
    return "other"


def dag(bundle_dir: Path, work: Path, target: str = "all") -> dict:
    """The whole DAG (or up to `target`) in `work`, every job's shell recorded."""
    wrap = work / ".wrap"
    wrap.mkdir(parents=True)
    real_bash = shutil.which("bash")
    assert real_bash is not None
    script = wrap / "bash"
    script.write_text(WRAPPER.format(python=sys.executable, bash=real_bash))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (work / "config").mkdir()
    shutil.copyfile(ROOT / "config" / "config.yaml", work / "config" / "config.yaml")
    joblog = work / "jobs.jsonl"
    env = dict(
        os.environ,
        PATH=f"{wrap}{os.pathsep}{os.environ['PATH']}",
        SECONDSEAT_JOBLOG=str(joblog),
    )
    cmd = [str(BIN / "snakemake"), target, "--snakefile", str(ROOT / "Snakefile")]
    cmd += ["--directory", str(work), "--cores", "2", "--quiet", "all"]
    if target != "all":
        cmd.append("--no-hooks")  # the onsuccess hook prints files of the whole DAG
    cmd += ["--configfile", str(CONFIG), "--config", f"bundle={bundle_dir}", f"prereg={PREREG}"]
    run = measured(cmd, env)
    jobs = [json.loads(line) for line in joblog.read_text().splitlines()]
    if target != "all":
        return {"wall": run["wall"], "jobs": jobs}
    for j in jobs:
        j["label"] = label_of(j["cmd"])
    run["jobs"] = [{k: j[k] for k in ("label", "wall", "maxrss_kb", "user", "sys")} for j in jobs]
    res = work / "results" / "synthetic"
    run["census"] = json.loads((res / "census.json").read_text())
    run["planted_found_exactly"] = {
        impl: planted_found(bundle_dir, res / "recompute" / impl / "run1" / "census.csv")
        for impl in ("pandas", "pyarrow")
    }
    return run


def planted_found(bundle_dir: Path, census: Path) -> bool:
    """The divergent cells of a contestant's census are exactly the generator's planted ones."""
    import csv

    with (bundle_dir / "planted.csv").open(newline="") as f:
        planted = {(r["row_id"], r["column"]) for r in csv.DictReader(f)}
    with census.open(newline="") as f:
        found = {(r["row_id"], r["column"]) for r in csv.DictReader(f) if r["class"] == "divergent"}
    return found == planted


def alone(bundle_dir: Path, work: Path) -> dict:
    """Each contestant by itself (and again with one null draw instead of the
    prereg's), and the physical reference, back to back."""
    out: dict = {}
    prereg = work / "results" / "synthetic" / "lock" / "prereg.yaml"
    one_draw = work / "one-draw.yaml"
    one_draw.write_text(re.sub(r"(?m)^null_draws: \d+", "null_draws: 1", prereg.read_text()))
    for impl in ("pandas", "pyarrow"):
        python = ROOT / ".venvs" / f"impl-{impl}" / "bin" / "python"
        for name, method in ((impl, prereg), (f"{impl}, 1 null draw", one_draw)):
            cmd = [str(python), "-m", f"impl_{impl}", "--prereg", str(method)]
            cmd += ["--bundle", str(bundle_dir), "--out", str(work / "alone" / name)]
            out[name] = measured(cmd, env_with())
    ref = measured([sys.executable, "-c", REFERENCE, str(bundle_dir / "instances.parquet")])
    imp, query, groups = ref["stdout"].split()
    ref.update(import_s=float(imp), query_s=float(query), groups=int(groups))
    out["polars reference"] = ref
    return out


def summarise(jobs: list[dict]) -> dict[str, dict]:
    """Per kind of job: how many, total and largest wall time, largest peak RSS."""
    table: dict[str, dict] = {}
    for j in jobs:
        t = table.setdefault(j["label"], {"n": 0, "total": 0.0, "max": 0.0, "rss_mb": 0.0})
        t["n"] += 1
        t["total"] += j["wall"]
        t["max"] = max(t["max"], j["wall"])
        t["rss_mb"] = max(t["rss_mb"], j["maxrss_kb"] / 1024)
    return dict(sorted(table.items(), key=lambda kv: -kv[1]["total"]))


def exponent(t1: float, t2: float, n1: int, n2: int) -> float:
    return math.log(t2 / t1) / math.log(n2 / n1)


def report(results: dict) -> None:
    sizes = list(results)
    for s in sizes:
        r = results[s]
        d, a = r["dag"], r["alone"]
        ref = a["polars reference"]
        print(f"\n== {s}: {r['rows']:,} instance rows, {r['models']} models ==")
        print(
            f"whole DAG (2 cores): {d['wall']:.1f} s wall, {d['cpu']:.1f} s CPU, "
            f"{len(d['jobs'])} jobs; census: {d['census']['classes']}"
        )
        print(f"planted divergences found exactly: {d['planted_found_exactly']}")
        if "spine" in d:
            w = d["spine"]
            print(
                f"up to the census only (lock, 4 recomputes, agreement, census): "
                f"{w['wall']:.1f} s wall, {w['jobs']} jobs"
            )
        print(f"{'job kind':34}{'n':>4}{'total s':>9}{'max s':>8}{'peak MB':>9}")
        for label, t in summarise(d["jobs"]).items():
            print(f"{label:34}{t['n']:4}{t['total']:9.1f}{t['max']:8.2f}{t['rss_mb']:9.0f}")
        controls = sum(
            j["wall"] for j in d["jobs"] if "control" in j["label"] or "controls" in j["label"]
        )
        total = sum(j["wall"] for j in d["jobs"])
        print(
            f"controls: {controls:.1f} s of {total:.1f} s summed job time ({controls / total:.0%})"
        )
        print(f"alone, back to back:{'':14}{'wall s':>9}{'peak MB':>9}{'x ref':>8}")
        for name, x in a.items():
            print(f"  {name:32}{x['wall']:9.2f}{x['rss_mb']:9.0f}{x['wall'] / ref['wall']:8.1f}")
        print(
            f"  (reference: import {ref['import_s']:.2f} s, scan + group-by {ref['query_s']:.2f} s, "
            f"{ref['groups']} groups; DAG / reference = {d['wall'] / ref['wall']:.0f})"
        )
    if len(sizes) >= 2:
        s1, s2 = sizes[-2], sizes[-1]
        r1, r2 = results[s1], results[s2]
        n1, n2 = r1["rows"], r2["rows"]
        print(f"\n== growth {s1} -> {s2} ({n2 / n1:.1f}x rows): ratio t2/t1, exponent b ==")
        pairs = [("whole DAG", r1["dag"]["wall"], r2["dag"]["wall"])]
        for name in ("pandas", "pyarrow", "polars reference"):
            pairs.append((f"{name} (alone)", r1["alone"][name]["wall"], r2["alone"][name]["wall"]))
        j1, j2 = summarise(r1["dag"]["jobs"]), summarise(r2["dag"]["jobs"])
        for label in j2:
            if label in j1:
                pairs.append((f"{label} (in DAG, max)", j1[label]["max"], j2[label]["max"]))
        for name, t1, t2 in pairs:
            print(f"  {name:44}{t2 / t1:7.2f}{exponent(t1, t2, n1, n2):7.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="40k,1m,10m", help=f"comma-separated, of {list(SIZES)}")
    ap.add_argument("--models", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "secondseat-scale"))
    ap.add_argument("--json", default=None, help="also write every figure here")
    ap.add_argument(
        "--spine",
        action="store_true",
        help="also time the DAG up to the census alone (no controls, report, annex)",
    )
    args = ap.parse_args()
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    for label in args.sizes.split(","):
        rows = SIZES[label]
        bundle_dir, gen = bundle(cache, label, rows, args.models, args.seed)
        work = Path(tempfile.mkdtemp(prefix=f"secondseat-scale-{label}-"))
        bare = Path(tempfile.mkdtemp(prefix=f"secondseat-scale-{label}-bare-"))
        try:
            run = dag(bundle_dir, work)
            if args.spine:
                spine = dag(bundle_dir, bare, "results/synthetic/census.txt")
                run["spine"] = {"wall": spine["wall"], "jobs": len(spine["jobs"])}
            results[label] = {
                "rows": _instance_rows(bundle_dir),
                "models": args.models,
                "generate": {k: v for k, v in gen.items() if k != "stdout"},
                "dag": {k: v for k, v in run.items() if k != "stdout"},
                "alone": {
                    k: {kk: vv for kk, vv in v.items() if kk != "stdout"}
                    for k, v in alone(bundle_dir, work).items()
                },
            }
        finally:
            shutil.rmtree(work, ignore_errors=True)
            shutil.rmtree(bare, ignore_errors=True)
        print(f"{label}: DAG {results[label]['dag']['wall']:.1f} s", file=sys.stderr)
    report(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


def _instance_rows(bundle_dir: Path) -> int:
    import polars as pl

    return int(pl.scan_parquet(bundle_dir / "instances.parquet").select(pl.len()).collect().item())


if __name__ == "__main__":
    main()
