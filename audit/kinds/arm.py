"""One arm, as the workflow runs it: a frozen record built from the config and the
checked prereg, once, before any job (workflow/rules/common.smk).

Everything the rules name that depends on the arm's kind or its prereg is here: the
bundle files the lock hashes and the contestants read, the run files, the census,
report and recorded outputs, the controls' source, the trials comparison's
arguments, and what the run builds in the end. The workflow's rules read only these
names; which kind an arm is comes from audit/kinds/arm_kind.py (``Arm.kind``).

Paths are strings relative to the run's working folder, as Snakemake takes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.cells.record import Prereg as LeaderboardPrereg
from audit.kinds.arm_kind import LEADERBOARD, TRIALS, Kind
from audit.kinds.record import Prereg
from audit.trials.record import Prereg as TrialsPrereg

RESULTS = "results"  # every arm's folder; an amendment's parent is sealed here too
IMPLS = ("pandas", "pyarrow")
RUNS = (1, 2)
TRIALS_PLOTS = ("task_rewards", "intervals", "null_histograms", "settings")
UNIVERSE_ROLE = "universe:"  # the lock's role of a universe table (audit/cells/universe.py)


@dataclass(frozen=True)
class Caption:
    """A report output shown in Snakemake's own report (--report)."""

    caption: str
    category: str
    what: str


@dataclass(frozen=True)
class Arm:
    name: str
    kind: Kind
    res: str  # results/<arm>
    bundle: str  # the bundle folder the lock reads (a Hub bundle: where it is fetched)
    hf_uri: str | None  # hf://datasets/<owner>/<name>@<commit>, fetched by a rule
    controls: tuple[str, ...]  # the prereg's controls, sorted
    run_files: tuple[str, ...]  # a recompute run's files, <name>.csv
    needed: tuple[str, ...]  # files of the bundle folder that must be there before any job
    fetched: tuple[str, ...]  # the files a Hub bundle's fetch downloads (fetch.smk)
    fetched_optional: tuple[str, ...]  # and those it downloads when the commit has them
    built_by_rule: str | None  # a bundle folder a rule builds (demo, Hub): not checked
    roles: dict[str, tuple[str, Any]]  # role -> (shipped file, declared types): lock checks
    jobs: tuple[str, str] | None  # a trials source: (jobs folder as named, its path)
    shipped: dict[str, str]  # input name -> shipped bundle file the lock reads and hashes
    assembled: dict[str, str]  # input name -> a file a rule made that the lock hashes
    copied: dict[str, str]  # input name -> a shipped file the lock copies where it is read
    read: dict[str, str]  # input name -> what the contestants read besides the lock
    read_dir: str  # the folder the contestants read (--bundle)
    lock_bundle: str  # the folder the lock hashes (--bundle)
    lock_assembled: tuple[str, ...]  # the lock's --assembled argument, or nothing
    control_bundle: tuple[str, ...]  # the files of a control's perturbed bundle
    control_run_files: tuple[str, ...]  # what a control's rerun writes and is compared on
    ranks_before: dict[str, str]  # the unperturbed rank census a swap's prediction relabels
    controls_md: tuple[str, ...]  # controls.md, when the arm's controls run
    census_outputs: dict[str, str]
    referee_outputs: tuple[str, ...]  # a trials arm's referee tables (the report reads them)
    recorded_outputs: tuple[str, ...]  # what record_outputs chains, before an amendment's
    report_inputs: dict[str, Any]
    report_outputs: dict[str, Any]
    # what the report's figures job reads and draws (a leaderboard's); none: the report
    # draws its figures itself (a trials arm's need its census)
    figure_inputs: dict[str, Any]
    figure_outputs: dict[str, str]
    report_captions: dict[str, Caption] = field(default_factory=dict)
    trials_source: bool = False  # a trials arm adapting jobs (settings census, adapt_trials)
    source_jobs: str = ""  # the jobs folder a trials source names, "" for any other
    source_format: str = ""
    adapt_args: tuple[str, ...] = ()  # adapt-trials' own flags (tb-run-v1)
    compare_args: tuple[str, ...] = ()  # compare-runs' arguments, () without compare

    def final_outputs(self) -> list[str]:
        """What `snakemake` builds when asked for nothing: the census, the controls' table
        when the arm has controls, and the annex (which waits for the rest)."""
        return [f"{self.res}/census.txt", *self.controls_md, f"{self.res}/annex"]

    def versus(self, parent: str | None) -> list[str]:
        """What the rule versus writes: an amendment beside its parent; none without."""
        return (
            [f"{self.res}/versus-{parent}.csv", f"{self.res}/versus-{parent}.json"]
            if parent
            else []
        )

    def lock_inputs(self) -> dict[str, str]:
        """What the lock reads besides the prereg: the shipped files it hashes, and a
        trials source's table the adapter assembled."""
        return {**self.shipped, **self.assembled}

    def recompute_inputs(self) -> dict[str, str]:
        """What a recompute reads besides the locked prereg and files.json."""
        return {"lock": f"{self.res}/lock/lock.json", **self.read}

    def control_inputs(self) -> dict[str, str]:
        """What the controls read: the locked bundle and its files.json (a leaderboard),
        or the trial table as the contestants read it and the lock (trials)."""
        if self.kind.controls == "bundle":
            return {"files": f"{self.res}/lock/files.json", **self.shipped, **self.ranks_before}
        return {
            "table": self.read["table"],
            "lock": f"{self.res}/lock/lock.json",
            **self.ranks_before,
        }

    def control_source_args(self, input: Any) -> list[str]:
        """The controls' source arguments, from the files the rule takes (control_inputs)."""
        ranks = ["--ranks", str(Path(input.ranks).parent)] if self.ranks_before else []
        if self.kind.controls == "bundle":
            bundle = str(Path(input.leaderboard).parent)
            return ["--bundle", bundle, "--lock", str(input.files), *ranks]
        return ["--table", str(input.table), *ranks]


def build(config: dict[str, Any], kind: Kind, rec: Prereg) -> Arm:
    """The arm of this config and checked prereg's record (of this kind)."""
    res = f"{RESULTS}/{config['arm']}"
    bundle = str(config["bundle"]).rstrip("/")
    common = {
        "name": str(config["arm"]),
        "kind": kind,
        "res": res,
        "controls": tuple(sorted(rec.controls)),
    }
    if kind is TRIALS:
        assert isinstance(rec, TrialsPrereg)
        return _trials(common, res, bundle, rec)
    assert kind is LEADERBOARD and isinstance(rec, LeaderboardPrereg)
    return _leaderboard(common, res, bundle, rec)


def _leaderboard(common: dict[str, Any], res: str, bundle: str, rec: LeaderboardPrereg) -> Arm:
    hf_uri = bundle if bundle.startswith("hf://") else None
    if hf_uri:
        bundle = f"{res}/bundle/hf"
    names = {r: rec.bundle.table(r) for r in ("leaderboard", "instances")}
    # universes declared as tables (docs/contract.md, Recipes): bundle files the lock hashes
    universes = {f"{UNIVERSE_ROLE}{n}": n for n in LEADERBOARD.entry("bundle_tables")(rec)}
    run_files = list(LEADERBOARD.run_files)
    if rec.feasibility:  # declared: the contestants write feasibility.csv too
        run_files.append("feasibility")
    if rec.ranks:  # declared: the contestants write ranks.csv and rank_pairs.csv too
        run_files += ["ranks", "rank_pairs"]
    shipped = {role: f"{bundle}/{name}" for role, name in names.items()}
    controls = common["controls"]
    # With ranks declared, a swap's prediction relabels the unperturbed run's rank census
    # (controls/ranks_predict.py): the controls read pandas' first run's rank files too.
    ranks_before = (
        {f: f"{res}/recompute/pandas/run1/{f}.csv" for f in ("ranks", "rank_pairs")}
        if rec.ranks
        else {}
    )
    census = {
        "txt": f"{res}/census.txt",
        "json": f"{res}/census.json",
        "columns": f"{res}/census_columns.csv",
        "cells": f"{res}/census_cells.csv",
        "rows": f"{res}/census_rows.csv",
    }
    recorded = [
        *[f"{res}/recompute/{i}/run{r}/{f}.csv" for i in IMPLS for r in RUNS for f in run_files],
        f"{res}/agreement.json",
        *(census[k] for k in ("json", "columns", "cells", "rows")),
        *(
            f"{res}/controls/{c}/{i}/{f}.csv"
            for c in controls
            for i in IMPLS
            for f in LEADERBOARD.controls_compared
        ),
        *(f"{res}/controls/{c}/check.csv" for c in controls),
        f"{res}/controls.csv",
    ]
    report_inputs = {
        "columns": census["columns"],
        "cells": census["cells"],
        "hist": f"{res}/recompute/pandas/run1/null_hist.csv",
        "controls": f"{res}/controls.csv",
    }
    # the report's figures, drawn by a job of their own before the census from what it
    # copies and counts (audit/report/leaderboard_figures.py), which the report inlines
    figure_inputs = {
        "cells": f"{res}/recompute/pandas/run1/census.csv",
        "nulls": f"{res}/recompute/pandas/run1/nulls.csv",
        "hist": f"{res}/recompute/pandas/run1/null_hist.csv",
        "prereg": f"{res}/lock/prereg.yaml",
        "checks": [f"{res}/controls/{c}/check.csv" for c in controls],
    }
    figure_outputs = {
        "census_map": f"{res}/report/census_map.svg",
        "nulls": f"{res}/report/null_histograms.svg",
        "controls": f"{res}/report/controls.svg",
    }
    report_inputs.update(figure_outputs)
    report_outputs = {
        "md": f"{res}/report/report.md",
        "html": f"{res}/report/report.html",
    }
    captions = {
        "html": Caption("../report/report.rst", "Report", "the whole report"),
        "census_map": Caption("../report/census_map.rst", "Census", "census map"),
        "nulls": Caption("../report/nulls.rst", "Chance", "permutation nulls"),
        "controls": Caption("../report/controls.rst", "Controls", "predicted against measured"),
    }
    if rec.ranks:  # declared only (docs/contract.md, Ranks)
        report_inputs["ranks"] = f"{res}/recompute/pandas/run1/ranks.csv"
        report_inputs["rank_pairs"] = f"{res}/recompute/pandas/run1/rank_pairs.csv"
        report_outputs["ranks"] = f"{res}/report/ranks.svg"
        captions["ranks"] = Caption(
            "../report/ranks.rst", "Ranks", "rank intervals and the top row's tie group"
        )
    return Arm(
        **common,
        bundle=bundle,
        hf_uri=hf_uri,
        run_files=tuple(run_files),
        needed=tuple(names.values()),
        built_by_rule=bundle if hf_uri else "results/demo-bundle",
        roles={r: (f"{bundle}/{n}", None) for r, n in {**names, **universes}.items()},
        fetched=(*names.values(), *universes.values()),
        # the publisher's digest file the lock recomputes, when the prereg declares one
        fetched_optional=(rec.publisher_hash.file,) if rec.publisher_hash else (),
        jobs=None,
        shipped=shipped,
        assembled={},
        copied={},
        read=dict(shipped),
        read_dir=str(Path(shipped["leaderboard"]).parent),
        lock_bundle=str(Path(shipped["leaderboard"]).parent),
        lock_assembled=(),
        control_bundle=(names["leaderboard"], names["instances"]),
        control_run_files=(
            *LEADERBOARD.controls_compared,
            *(("ranks", "rank_pairs") if ranks_before else ()),
        ),
        ranks_before=ranks_before,
        controls_md=(f"{res}/controls.md",),
        census_outputs=census,
        referee_outputs=(),
        recorded_outputs=tuple(recorded),
        report_inputs=report_inputs,
        report_outputs=report_outputs,
        figure_inputs=figure_inputs,
        figure_outputs=figure_outputs,
        report_captions=captions,
    )


def compare_args(rec: TrialsPrereg) -> tuple[str, ...]:
    """compare-runs' arguments from the prereg's compare block (trials contract section
    11): every one its own argument (`:q` quotes each), an optional key left out keeping
    the command's default; nothing without a compare block."""
    c = rec.compare
    if c is None:
        return ()
    under = ["--under-study", ",".join(c.under_study)] if c.under_study else []
    optional = [arg for k, v in c.optional().items() for arg in (f"--{k}", str(v))]
    runs = (str(c.a), str(c.b))
    if any(r.startswith("-") for r in runs):
        # a run named like an option (a jobs folder "-x"): argparse would read it as one,
        # so both runs go as --a=<run> --b=<run>; other names stay positional, the
        # command every arm ran before (its jobs not run again)
        runs = (f"--a={runs[0]}", f"--b={runs[1]}")
    return (
        *runs,
        "--denominator",
        str(c.denominator),
        "--k",
        ",".join(map(str, c.k)),
        "--seed",
        str(rec.seed),
        "--draws",
        str(c.draws),
        *under,
        *optional,  # schema: enums and numbers, in the schema's order
    )


def _trials(common: dict[str, Any], res: str, bundle: str, rec: TrialsPrereg) -> Arm:
    source = rec.source
    board = rec.leaderboard
    run_files = TRIALS.run_files
    if rec.ranks:  # declared (section 17): the contestants write the rank files too
        run_files += ("ranks", "rank_pairs")
    trials_source = rec.trials_source
    # The folder the contestants read: the shipped bundle (registry), or the one the
    # pipeline assembles from the adapter's output and the lock's copy of the board.
    read_dir = f"{res}/bundle" if trials_source else bundle
    needed = [] if trials_source else [source.table]
    needed += [board.table] if board else []
    roles: dict[str, tuple[str, Any]] = {}
    shipped: dict[str, str] = {}
    if not trials_source:
        roles["registry"] = (f"{bundle}/{source.table}", None)
        shipped["table"] = f"{bundle}/{source.table}"
    if board:
        types = dict(board.types) if board.types is not None else None  # a .csv board's
        roles["leaderboard"] = (f"{bundle}/{board.table}", types)
        shipped["leaderboard"] = f"{bundle}/{board.table}"
    assembled = {"table": f"{res}/bundle/trials.parquet"} if trials_source else {}
    copied = {"leaderboard": f"{read_dir}/{board.table}"} if trials_source and board else {}
    read = {**shipped, **assembled, **copied} if trials_source else dict(shipped)
    controls = common["controls"]
    # With ranks declared, a swap's prediction relabels the unperturbed run's rank census
    # (controls/trials_swap.py), as on a leaderboard arm: pandas' first run's rank files.
    ranks_before = (
        {f: f"{res}/recompute/pandas/run1/{f}.csv" for f in ("ranks", "rank_pairs")}
        if rec.ranks
        else {}
    )
    referee = [f"{res}/census.json", f"{res}/intervals.csv", f"{res}/census_rows.csv"]
    if trials_source:
        referee += [f"{res}/settings/settings.csv", f"{res}/settings/settings_all.csv"]
    if rec.compare is not None:
        referee += [f"{res}/compare/pairs.csv", f"{res}/compare/compare.json"]
    recorded = [
        *([f"{res}/bundle/adapter.json"] if trials_source else []),
        *(f"{res}/recompute/{i}/run{r}/{f}.csv" for i in IMPLS for r in RUNS for f in run_files),
        f"{res}/agreement.json",
        *referee,
    ]
    report_inputs: dict[str, Any] = {"referee": referee}
    report_outputs: dict[str, Any] = {
        "md": f"{res}/report/report.md",
        "html": f"{res}/report/report.html",
        # the plots (audit/report/trials.py FIGURES), each written even with no data
        "plots": [f"{res}/report/{p}.svg" for p in TRIALS_PLOTS],
    }
    if rec.ranks:  # declared only (section 17; audit/ranks/record.py)
        report_inputs["ranks"] = f"{res}/recompute/pandas/run1/ranks.csv"
        report_inputs["rank_pairs"] = f"{res}/recompute/pandas/run1/rank_pairs.csv"
        report_outputs["ranks"] = f"{res}/report/ranks.svg"
    tb = source.format == "tb-run-v1"  # section 16.1: duplicates and the board's minimum
    return Arm(
        **common,
        bundle=bundle,
        hf_uri=None,
        run_files=run_files,
        needed=tuple(needed),
        fetched=(),
        fetched_optional=(),
        built_by_rule=None,
        roles=roles,
        jobs=(str(source.jobs), f"{bundle}/{source.jobs}") if trials_source else None,
        shipped=shipped,
        assembled=assembled,
        copied=copied,
        read=read,
        read_dir=read_dir,
        lock_bundle=bundle,
        lock_assembled=("--assembled", f"{res}/bundle") if trials_source else (),
        control_bundle=(source.table,),  # the file a control perturbs, as it is read
        control_run_files=(
            *TRIALS.controls_compared,
            *(("ranks", "rank_pairs") if ranks_before else ()),
        ),
        ranks_before=ranks_before,
        controls_md=(f"{res}/controls.md",) if controls else (),
        census_outputs={
            "txt": f"{res}/census.txt",
            "json": f"{res}/census.json",
            "intervals": f"{res}/intervals.csv",
            "recovery": f"{res}/recovery.csv",
            "entries": f"{res}/entries.csv",
            "rows": f"{res}/census_rows.csv",
            "recomputed_only": f"{res}/recomputed_only.csv",
            "cells": f"{res}/census_cells.csv",  # the contestants' census.csv, as sealed
        },
        referee_outputs=tuple(referee),
        recorded_outputs=tuple(recorded),
        report_inputs=report_inputs,
        report_outputs=report_outputs,
        figure_inputs={},
        figure_outputs={},
        trials_source=trials_source,
        source_jobs=source.jobs or "",
        source_format=source.format or "",
        adapt_args=(
            ("--duplicates", str(source.duplicates), "--min-tries", str(source.min_tries))
            if tb
            else ()
        ),
        compare_args=compare_args(rec),
    )
