"""Run the pipeline's stages on each bundle, once per fault, and say which stage flags it.

One contestant is mutated at a time; the other runs unmutated. The stages are
the ones the DAG runs (docs/self-test.md), called directly rather than through
the whole DAG per fault:

- ``recompute_fails``: the mutant exits non-zero where the unmutated contestant does not;
- ``runs_differ``: two runs of the mutant do not write the same bytes (``audit.core.runs``);
- ``contestants_disagree``: its files against the other contestant's (``audit.core.agree``);
- ``control_fails``: a control of the prereg, predicted by ``controls``' own
  arithmetic from the unperturbed bundle before any mutant runs, measured on
  the mutant alone (``controls.check``);
- ``census_incomplete``: its census does not give every cell one class (``audit.cells.census``).

The unmutated contestants run through the same stages first (fault ``none``):
a stage that flags them would flag every fault, so the self-test fails then.
Controls are not stamped in a ledger here: nothing of the self-test is a record.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from audit.cells import prereg as prereg_mod
from audit.errors import AuditError
from audit.selftest import catalogue
from audit.selftest.catalogue import CONTESTANTS, Fault

ROOT = Path(__file__).resolve().parents[2]
STAGES = (
    "recompute_fails",
    "runs_differ",
    "contestants_disagree",
    "control_fails",
    "census_incomplete",
)
YES, NO, NA = "yes", "no", "-"


@dataclass(frozen=True)
class Bundle:
    name: str
    program: str  # cells or trials
    prereg: Path
    source: str  # how it is made: "demo", "edges", a folder, or "jobs:<folder>"


def bundles(shared: Path) -> dict[str, Bundle]:
    """Every bundle the self-test knows; the real ones live under ``shared``."""
    p = ROOT / "prereg"
    shared = shared.resolve()  # the contestants run in a folder of their own
    return {
        "demo": Bundle("demo", "cells", p / "demo.yaml", "demo"),
        "demo-edges": Bundle("demo-edges", "cells", p / "demo.yaml", "edges"),
        "openhands-index": Bundle(
            "openhands-index",
            "cells",
            p / "openhands-index.yaml",
            str(shared / "openhands-index-3015ac6"),
        ),
        "skillsbench-registry": Bundle(
            "skillsbench-registry",
            "trials",
            p / "skillsbench-registry.yaml",
            str(shared / "skillsbench-registry"),
        ),
        "benchflow-sample": Bundle(
            "benchflow-sample",
            "trials",
            p / "benchflow-sample.yaml",
            "jobs:" + str(shared / "benchflow-trials-sample" / "jobs"),
        ),
    }


@dataclass
class Outcome:
    """One (fault, bundle): each stage's flag and what it saw."""

    fault: str
    contestant: str
    bundle: str
    flags: dict[str, str] = field(default_factory=dict)
    details: dict[str, str] = field(default_factory=dict)


def materialise(b: Bundle, work: Path) -> Path:
    """The folder the contestants read for this bundle."""
    if b.source == "demo":
        from audit.bundles.demo import write

        write(str(work / "demo"))
        return work / "demo"
    if b.source == "edges":
        from audit.selftest.edges import write as write_edges

        return write_edges(work / "demo-edges")
    if b.source.startswith("jobs:"):
        from audit.adapters.formats import adapt_to

        jobs = b.source.removeprefix("jobs:")
        if not Path(jobs).is_dir():
            raise AuditError("missing_file", jobs, f"bundle {b.name} is not present")
        adapt_to(jobs, str(work / b.name))
        return work / b.name
    if not Path(b.source).is_dir():
        raise AuditError("missing_file", b.source, f"bundle {b.name} is not present")
    return Path(b.source)


class Contestants:
    """Runs a contestant (mutated or not) as the DAG does: its own interpreter, its own process."""

    def __init__(self, root: Path, work: Path) -> None:
        self.root = root
        self.cwd = work / "cwd"  # outside the repository, so `-m` imports the copy named
        self.cwd.mkdir(parents=True, exist_ok=True)
        for impl in CONTESTANTS:
            if not self.python(impl).is_file():
                raise AuditError(
                    "missing_file",
                    str(self.python(impl)),
                    "the contestant's environment (built by the DAG's impl_env rule)",
                )

    def python(self, impl: str) -> Path:
        return self.root / ".venvs" / f"impl-{impl}" / "bin" / "python"

    def run(
        self,
        impl: str,
        program: str,
        src: Path,
        prereg: Path,
        bundle: Path,
        out: Path,
        draws: bool = True,
    ) -> tuple[int, str]:
        module = f"impl_{impl}" + (".trials" if program == "trials" else "")
        argv = [
            str(self.python(impl)),
            "-m",
            module,
            "--prereg",
            str(prereg),
            "--bundle",
            str(bundle),
            "--out",
            str(out),
        ]
        if not draws and program == "cells":
            argv.append("--no-draws")
        env = {**os.environ, "PYTHONPATH": str(src)}
        env.pop("PYTHONHASHSEED", None)  # each process salts str hashes as a DAG job would
        p = subprocess.run(
            argv, check=False, cwd=self.cwd, env=env, capture_output=True, text=True, timeout=900
        )
        return p.returncode, (p.stderr.strip().splitlines() or [""])[-1]


@dataclass
class Prepared:
    """A bundle made ready: its folder, its controls' predictions and perturbed bundles."""

    bundle: Bundle
    folder: Path
    doc: Any  # the prereg's frozen record, either kind's
    controls: dict[str, Path]  # control -> its folder (prediction.csv, selection.json, bundle/)
    shape: tuple[int, int] | None  # leaderboard rows x columns (cells bundles)


def prepare(b: Bundle, work: Path) -> Prepared:
    folder = materialise(b, work / "bundles")
    shape = None
    controls: dict[str, Path] = {}
    if b.program == "cells":
        from controls.perturb import perturb
        from controls.predict import predict, selection_json

        doc = record = prereg_mod.load_record(str(b.prereg))
        lb = folder / record.bundle.leaderboard
        shape = (
            pl.scan_parquet(lb).select(pl.len()).collect().item(),
            len(pl.read_parquet_schema(lb)),
        )
        for name in sorted(record.controls):
            d = work / "controls" / b.name / name
            d.mkdir(parents=True)
            table, selection = predict(record, str(folder), name)
            (d / "prediction.csv").write_text(table, encoding="utf-8")
            (d / "selection.json").write_text(selection_json(selection), encoding="utf-8")
            perturb(record, str(folder), str(d / "selection.json"), str(d / "bundle"))
            controls[name] = d
    else:
        from audit.trials import prereg as trials_prereg
        from controls import sources
        from controls.predict import selection_json
        from controls.trials_perturb import perturb as perturb_trials

        doc = trials_prereg.load_record(str(b.prereg))
        table = folder / doc.source.table
        for name in sorted(doc.controls):
            d = work / "controls" / b.name / name
            d.mkdir(parents=True)
            text, selection = sources.predict(doc, sources.read_rows(doc, table), name)
            (d / "prediction.csv").write_text(text, encoding="utf-8")
            (d / "selection.json").write_text(selection_json(selection), encoding="utf-8")
            perturb_trials(doc, str(table), str(d / "selection.json"), str(d / "bundle"))
            controls[name] = d
    return Prepared(b, folder, doc, controls, shape)


def _flag(cond: bool) -> str:
    return YES if cond else NO


def stages(
    cs: Contestants,
    prep: Prepared,
    impl: str,
    src: Path,
    out: Path,
    clean: dict[str, Path],
    fault: str,
) -> Outcome:
    """Every stage for one contestant (built from ``src``) on one bundle."""
    from audit.core.agree import TRIAL_KEYS, agree
    from audit.core.runs import same_runs

    b = prep.bundle
    res = Outcome(fault, impl, b.name, {s: NA for s in STAGES})
    runs = [out / f"run{n}" for n in (1, 2)]
    codes = [cs.run(impl, b.program, src, b.prereg, prep.folder, r) for r in runs]
    failed = [(c, e) for c, e in codes if c != 0]
    res.flags["recompute_fails"] = _flag(bool(failed))
    if failed:
        res.details["recompute_fails"] = f"exit {failed[0][0]}: {failed[0][1]}"[:300]
        return res
    try:
        same_runs([str(r) for r in runs], str(out / "runs-identical.json"))
        res.flags["runs_differ"] = NO
    except AuditError as err:
        res.flags["runs_differ"] = YES
        res.details["runs_differ"] = f"{err.path}: {err.detail}"[:300]
    other = next(i for i in CONTESTANTS if i != impl)
    if other in clean:
        pair = {impl: runs[0], other: clean[other]}
        a, c = (pair[n] for n in CONTESTANTS)
        keys = TRIAL_KEYS if b.program == "trials" else None
        rep = agree(
            str(a),
            str(c),
            CONTESTANTS,
            str(out / "agreement.json"),
            str(out / "agreement.md"),
            keys,
        )
        res.flags["contestants_disagree"] = _flag(rep.disagreements > 0)
        if rep.disagreements:
            res.details["contestants_disagree"] = f"{rep.disagreements} disagreement(s)"
    if prep.shape is not None:
        from audit.cells.census import check_complete
        from audit.core.agree import read_csv

        try:
            check_complete(
                read_csv(runs[0] / "census.csv"), *prep.shape, str(runs[0] / "census.csv")
            )
            res.flags["census_incomplete"] = NO
        except AuditError as err:
            res.flags["census_incomplete"] = YES
            res.details["census_incomplete"] = err.detail[:300]
    if prep.controls:
        failing = []
        for name, d in prep.controls.items():
            verdict = control(cs, prep, impl, src, out / "controls" / name, runs[0], name, d)
            if verdict:
                failing.append(f"{name} ({verdict})")
        res.flags["control_fails"] = _flag(bool(failing))
        if failing:
            res.details["control_fails"] = "; ".join(failing)[:300]
    return res


def control(
    cs: Contestants,
    prep: Prepared,
    impl: str,
    src: Path,
    out: Path,
    before: Path,
    name: str,
    d: Path,
) -> str:
    """One control measured on one contestant: empty if it passes, else why not."""
    from controls.check import check
    from controls.trials_check import check as check_trials

    program = prep.bundle.program
    # a trials contestant always draws; a leaderboard rerun needs no null (docs/controls.md)
    code, _ = cs.run(
        impl, program, src, prep.bundle.prereg, d / "bundle", out / "after", draws=False
    )
    if code != 0:
        return f"exit {code} on the perturbed bundle"
    sel = json.loads((d / "selection.json").read_text(encoding="utf-8"))
    files = (
        str(d / "prediction.csv"),
        {impl: str(before)},
        {impl: str(out / "after")},
        str(out / "check.csv"),
        str(out / "verdict.json"),
    )
    if program == "trials":
        v = check_trials(sel, *files)
    else:
        v = check(name, sel["kind"], sel, *files)
    return "" if v["verdict"] == "pass" else "; ".join(v["reasons"])


def self_test(
    names: list[str],
    shared: Path,
    jobs: int = 2,
    catalogue_path: Path = catalogue.CATALOGUE,
    only: list[str] | None = None,
    root: Path = ROOT,
) -> tuple[list[Fault], list[Outcome], list[str]]:
    """(faults, outcomes, bundles run): the unmutated contestants first, then every fault."""
    faults = catalogue.load(catalogue_path)
    catalogue.check_all(faults, root, catalogue_path)  # a stale patch fails before anything runs
    if only:
        unknown = sorted(set(only) - {f.name for f in faults})
        if unknown:
            raise AuditError(
                "bad_args", str(catalogue_path), f"no fault named {', '.join(unknown)}"
            )
        faults = [f for f in faults if f.name in only]
    known = bundles(shared)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise AuditError(
            "bad_args", "self-test", f"unknown bundle(s) {unknown}; known: {sorted(known)}"
        )
    with tempfile.TemporaryDirectory(prefix="secondseat-self-test-") as tmp:
        work = Path(tmp)
        cs = Contestants(root, work)
        preps = [prepare(known[n], work) for n in names]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            # the unmutated contestants' own outputs: what every mutant is compared with
            ref = {
                (p.bundle.name, i): pool.submit(
                    cs.run,
                    i,
                    p.bundle.program,
                    root,
                    p.bundle.prereg,
                    p.folder,
                    work / "reference" / p.bundle.name / i,
                )
                for p in preps
                for i in CONTESTANTS
            }
            for (bname, i), fut in ref.items():
                code, err = fut.result()
                if code != 0:
                    raise AuditError("baseline_fails", bname, f"unmutated {i} exits {code}: {err}")
            clean = {
                p.bundle.name: {i: work / "reference" / p.bundle.name / i for i in CONTESTANTS}
                for p in preps
            }
            variants = [("none", i, root) for i in CONTESTANTS]
            variants += [
                (f.name, f.contestant, catalogue.build(f, root, work / "src" / f.name))
                for f in faults
            ]
            program = {f.name: f.program for f in faults}
            futures = [
                pool.submit(
                    stages,
                    cs,
                    p,
                    impl,
                    src,
                    work / "out" / name / p.bundle.name / impl,
                    clean[p.bundle.name],
                    name,
                )
                for name, impl, src in variants
                for p in preps
                if program.get(name, p.bundle.program) == p.bundle.program
            ]
            outcomes = [fut.result() for fut in futures]
    return faults, outcomes, names
